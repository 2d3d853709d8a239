package ask

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Expect values: what kind of answer the question wants.
const (
	// ExpectAny: the operator answers with or without a text.
	ExpectAny = ""
	// ExpectDone: the operator only says it is done (no text).
	ExpectDone = "done"
	// ExpectText: the operator answers with a text.
	ExpectText = "text"
)

// MaxReplyChars bounds the operator's reply.
const MaxReplyChars = 4000

// Errors of the board. The operator API maps them to admin codes.
var (
	// ErrOpen: the channel already has an open question.
	ErrOpen = errors.New("a question to the operator is already open on this channel")
	// ErrUnknown: no open question has this id (never asked, or already
	// answered, declined or closed).
	ErrUnknown = errors.New("no open question with this id (answered, declined, withdrawn or never asked)")
	// ErrTextNeeded: the question expects a text and the answer has none.
	ErrTextNeeded = errors.New("this question expects a text answer: give the text")
	// ErrNoTextExpected: the question expects done and the answer has a text.
	ErrNoTextExpected = errors.New("this question expects done, not a text: answer without text")
	// ErrReplyTooLong: the reply is longer than MaxReplyChars.
	ErrReplyTooLong = errors.New("the reply is longer than 4000 characters")
)

// Question is one open question, as the operator sees it.
type Question struct {
	// ID names the question to Answer and Decline: short, unique in the
	// process ("q7").
	ID string
	// ChannelID asks, about the phone DeviceKey ("endpoint/serial") it holds.
	ChannelID, DeviceKey string
	// Message is the agent's question.
	Message string
	// Expect is ExpectAny, ExpectDone or ExpectText.
	Expect string
	// AskedAt is when it was asked; Deadline when the agent stops waiting.
	AskedAt, Deadline time.Time
}

// Answer is how a question ended.
type Answer struct {
	// Answered: the operator answered (false: declined, withdrawn, or
	// closed with the channel's phone).
	Answered bool
	// Reply is the operator's text; HasReply says whether there is one.
	Reply    string
	HasReply bool
}

// Board is the open questions, one per channel at most. Safe for
// concurrent use; the zero value is not usable, see NewBoard.
type Board struct {
	mu   sync.Mutex
	next uint64
	open map[string]*Pending // by channel id
}

// NewBoard returns an empty board.
func NewBoard() *Board { return &Board{open: map[string]*Pending{}} }

// Pending is an open question, held by the call that asked it.
type Pending struct {
	b    *Board
	q    Question
	done chan struct{} // closed once the question ends
	ans  Answer        // set before done is closed
}

// Open puts q on the board (its ID is set here) or fails with ErrOpen when
// its channel already has one. The caller must Withdraw it when it stops
// waiting.
func (b *Board) Open(q Question) (*Pending, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.open[q.ChannelID]; ok {
		return nil, ErrOpen
	}
	b.next++
	q.ID = "q" + strconv.FormatUint(b.next, 10)
	p := &Pending{b: b, q: q, done: make(chan struct{})}
	b.open[q.ChannelID] = p
	return p, nil
}

// Question is the question as it was opened.
func (p *Pending) Question() Question { return p.q }

// Done is closed once the question is answered, declined or closed.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Answer is how the question ended; valid once Done is closed.
func (p *Pending) Answer() Answer {
	<-p.done
	return p.ans
}

// Withdraw ends the question unanswered if it is still open (the asking
// call timed out or ended). Idempotent.
func (p *Pending) Withdraw() {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	p.b.endLocked(p, Answer{})
}

// endLocked ends p with a if it is still open; b.mu must be held.
func (b *Board) endLocked(p *Pending, a Answer) {
	if b.open[p.q.ChannelID] != p {
		return
	}
	delete(b.open, p.q.ChannelID)
	p.ans = a
	close(p.done)
}

// List returns the open questions, oldest first.
func (b *Board) List() []Question {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Question, 0, len(b.open))
	for _, p := range b.open {
		out = append(out, p.q)
	}
	slices.SortFunc(out, func(x, y Question) int { return x.AskedAt.Compare(y.AskedAt) })
	return out
}

// byID finds an open question; b.mu must be held.
func (b *Board) byIDLocked(id string) *Pending {
	for _, p := range b.open {
		if p.q.ID == id {
			return p
		}
	}
	return nil
}

// Answer answers the open question id with reply ("": no text), checked
// against what it expects: ErrUnknown, ErrTextNeeded, ErrNoTextExpected
// or ErrReplyTooLong leave it open.
func (b *Board) Answer(id, reply string) (Question, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.byIDLocked(id)
	switch {
	case p == nil:
		return Question{}, ErrUnknown
	case p.q.Expect == ExpectText && reply == "":
		return p.q, ErrTextNeeded
	case p.q.Expect == ExpectDone && reply != "":
		return p.q, ErrNoTextExpected
	case utf8.RuneCountInString(reply) > MaxReplyChars:
		return p.q, ErrReplyTooLong
	}
	b.endLocked(p, Answer{Answered: true, Reply: reply, HasReply: reply != ""})
	return p.q, nil
}

// Decline ends the open question id unanswered; ErrUnknown when none.
func (b *Board) Decline(id string) (Question, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.byIDLocked(id)
	if p == nil {
		return Question{}, ErrUnknown
	}
	b.endLocked(p, Answer{})
	return p.q, nil
}

// Close ends the channel's open question unanswered unless it is about
// deviceKey, the phone the channel holds now ("": it holds none): the
// Profile calls it on every binding change (unbind, logout, lease end).
func (b *Board) Close(channelID, deviceKey string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p := b.open[channelID]; p != nil && (deviceKey == "" || p.q.DeviceKey != deviceKey) {
		b.endLocked(p, Answer{})
	}
}
