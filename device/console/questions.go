package console

import (
	"net/http"
)

// The agents' questions: the banner on every page links to the device
// page, whose form answers (a text, or done) or declines. The reply goes
// to the operator API and on to the agent only: never logged, never
// flashed back.

func (c *Console) answer(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	key, err := c.cfg.Ops.Answer(ctx, r.PostForm.Get("id"), r.PostForm.Get("reply"))
	c.done(r, "answer", err, "Answered; the agent has the answer.")
	c.backFromQuestion(w, r, key)
}

func (c *Console) decline(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	key, err := c.cfg.Ops.Decline(ctx, r.PostForm.Get("id"))
	c.done(r, "decline", err, "Declined; the agent was told no answer comes.")
	c.backFromQuestion(w, r, key)
}

// backFromQuestion returns to the device page the form was on (d), else
// to the device the question was about.
func (c *Console) backFromQuestion(w http.ResponseWriter, r *req, key string) {
	if d := r.PostForm.Get("d"); d != "" {
		key = d
	}
	back(w, r, key)
}
