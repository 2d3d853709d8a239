package console

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/operator"
)

// opTimeout bounds one operation a page runs.
const opTimeout = 15 * time.Second

// recentCalls is how many tool calls the device page shows.
const recentCalls = 20

// pageData is what every template gets.
type pageData struct {
	Title   string
	Nav     string // the nav entry to mark current
	CSRF    string // "" on the login page
	Flash   []flash
	Error   string
	Refresh int // live refresh period in ms (0: none)
	Now     time.Time

	Devices  []operator.Device
	Device   *operator.Device
	Requests []operator.Request
	Calls    []audit.Record
	Filter   audit.Filter
	TailURL  string
	LastID   int64
	Policy   operator.Policy
	Sig      string // the devices shown, so the script knows when to redraw the list
	// Questions are the agents' open questions: the banner of every page;
	// Asked those about the page's device.
	Questions []admin.Question
	Asked     []admin.Question

	// The devices page: counts of every device, the filter (Show a
	// status, Query a search), the free phones a waiting request can be
	// approved on.
	Counts      operator.Counts
	Show, Query string
	FreeDevices []operator.Device
}

// atNow is a device with the page's clock, for the parts that say how
// long ago.
type atNow struct {
	Now time.Time
	D   operator.Device
}

var funcs = template.FuncMap{
	"ago": func(now, t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return operator.Round(now.Sub(t)) + " ago"
	},
	"since": func(now, t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return operator.Round(now.Sub(t))
	},
	"at":   func(now time.Time, d operator.Device) atNow { return atNow{now, d} },
	"link": func(now time.Time, h *admin.Holder) string { return operator.LinkWords(h, now) },
	"left": func(now, t time.Time) string {
		if t.IsZero() {
			return "no limit"
		}
		d := t.Sub(now)
		if d <= 0 {
			return "ending"
		}
		return operator.Round(d)
	},
	"clock": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
	"ms": func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + " ms" },
	"q":  url.QueryEscape,
	// label is a channel as operators read it (redact.ChannelLabel).
	"label": operator.ChannelLabel,
	"join": func(s []string) string {
		return strings.Join(s, ", ")
	},
}

// parsePages parses each page with the layout and the shared parts.
func parsePages() (map[string]*template.Template, error) {
	base, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, fmt.Errorf("console templates: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, name := range []string{"login", "devices", "device", "audit", "policy"} {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("console templates: %w", err)
		}
		pages[name] = t
	}
	return pages, nil
}

// render writes a page; a template error is logged and answered 500
// before anything was sent (the page is rendered to a buffer first).
func (c *Console) render(w http.ResponseWriter, status int, name string, d pageData) {
	c.renderPart(w, status, name, "layout", d)
}

// renderPart writes one template of a page: "layout" (the page) or a
// part a script fetches ("tailrows").
func (c *Console) renderPart(w http.ResponseWriter, status int, name, entry string, d pageData) {
	var buf bytes.Buffer
	if err := c.pages[name].ExecuteTemplate(&buf, entry, d); err != nil {
		c.log.Error("console template", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (c *Console) data(r *req, title, nav string) pageData {
	qs, err := c.cfg.Ops.Questions(r.Context())
	if err != nil {
		c.log.Error("console questions", "err", err)
	}
	return pageData{Title: title, Nav: nav, CSRF: r.csrf, Flash: r.flash, Refresh: int(c.cfg.Refresh / time.Millisecond), Now: c.cfg.Now(),
		Questions: qs}
}

func (c *Console) ctx(r *req) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), opTimeout)
}

func (c *Console) devicesPage(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	d := c.data(r, "Devices", "devices")
	devs, err := c.cfg.Ops.Overview(ctx)
	if err != nil {
		d.Error = c.userError("devices", err)
	}
	slices.SortFunc(devs, func(a, b operator.Device) int { return cmp.Compare(a.Key, b.Key) })
	rows := make([]admin.DeviceRow, len(devs))
	for i, dv := range devs {
		rows[i] = dv.DeviceRow
		if dv.Status == operator.StatusFree {
			d.FreeDevices = append(d.FreeDevices, dv)
		}
	}
	d.Counts = operator.CountsOf(rows)
	q := r.URL.Query()
	d.Show, d.Query = q.Get("show"), strings.TrimSpace(q.Get("q"))
	var keys []string
	for _, dv := range devs {
		if (d.Show == "" || dv.Status == d.Show) && matches(dv, d.Query) {
			d.Devices = append(d.Devices, dv)
			keys = append(keys, dv.Key)
		}
	}
	d.Sig = strings.Join(keys, "\n")
	if d.Requests, err = c.cfg.Ops.Requests(ctx); err != nil {
		d.Error = c.userError("requests", err)
	}
	c.render(w, http.StatusOK, "devices", d)
}

// matches reports whether the devices page's search finds dv: a
// case-insensitive part of its title, key, tags or holder's label.
func matches(dv operator.Device, query string) bool {
	if query == "" {
		return true
	}
	hay := []string{dv.Title, dv.Key}
	hay = append(hay, dv.Tags...)
	if dv.Holder != nil {
		hay = append(hay, dv.Holder.Channel)
	}
	query = strings.ToLower(query)
	for _, h := range hay {
		if strings.Contains(strings.ToLower(h), query) {
			return true
		}
	}
	return false
}

// findDevice returns the device named by the d parameter.
func (c *Console) findDevice(ctx context.Context, key string) (*operator.Device, error) {
	devs, err := c.cfg.Ops.Overview(ctx)
	if err != nil {
		return nil, err
	}
	for i := range devs {
		if devs[i].Key == key {
			return &devs[i], nil
		}
	}
	return nil, nil
}

func (c *Console) devicePage(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	key := r.URL.Query().Get("d")
	d := c.data(r, "Device", "devices")
	dev, err := c.findDevice(ctx, key)
	switch {
	case err != nil:
		d.Error = c.userError("devices", err)
	case dev == nil:
		d.Title = "Unknown device"
		c.render(w, http.StatusNotFound, "device", d)
		return
	}
	d.Device = dev
	if dev != nil {
		d.Title = dev.Title
		for _, q := range d.Questions {
			if q.Device == dev.Key {
				d.Asked = append(d.Asked, q)
			}
		}
		if d.Calls, err = c.cfg.Ops.Audit(ctx, audit.Filter{Device: dev.Key, Limit: recentCalls}); err != nil {
			d.Error = c.userError("audit", err)
		}
	}
	if d.Requests, err = c.cfg.Ops.Requests(ctx); err != nil {
		d.Error = c.userError("requests", err)
	}
	c.render(w, http.StatusOK, "device", d)
}

// thumb answers a JPEG of the device's screen, or the placeholder when it
// cannot be taken (offline, unauthorized): the page shows that instead of
// a broken image. Nothing is cached or stored.
func (c *Console) thumb(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	img, err := c.cfg.Ops.Thumbnail(ctx, r.URL.Query().Get("d"))
	if err != nil {
		c.log.Debug("console thumbnail unavailable", "err", err)
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Write(noThumb)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Write(img)
}

var noThumb = func() []byte {
	b, err := staticFS.ReadFile("static/nothumb.svg")
	if err != nil {
		panic(err)
	}
	return b
}()

// back sends the browser to the device page after an action.
func back(w http.ResponseWriter, r *req, key string) {
	http.Redirect(w, r.Request, "/device?d="+url.QueryEscape(key), http.StatusSeeOther)
}

func (c *Console) done(r *req, op string, err error, ok string) {
	if err != nil {
		c.sessions.addFlash(r.id, flash{Text: c.userError(op, err), Err: true})
		return
	}
	c.sessions.addFlash(r.id, flash{Text: ok})
}

// pairTTLs are the lifetimes the page offers for a pairing code.
var pairTTLs = map[string]time.Duration{"": 0, "5m": 5 * time.Minute, "15m": 15 * time.Minute, "1h": time.Hour, "24h": 24 * time.Hour}

func (c *Console) pair(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	key := r.PostForm.Get("d")
	ttl, ok := pairTTLs[r.PostForm.Get("ttl")]
	if !ok {
		c.sessions.addFlash(r.id, flash{Text: "pairing code lifetime: pick one of the list", Err: true})
		back(w, r, key)
		return
	}
	code, err := c.cfg.Ops.Pair(ctx, key, ttl, false)
	if err != nil {
		c.done(r, "pair", err, "")
	} else {
		c.log.Info("console: pairing code issued")
		c.sessions.addFlash(r.id, flash{Text: "Pairing code issued; give it to the user once. It is shown only now.", Code: code})
	}
	back(w, r, key)
}

// deviceOp is an action on the phone the form names (d), done by op; the
// page says msg when it worked and the browser goes back to the phone's page.
func (c *Console) deviceOp(what, msg string, op func(context.Context, string) (string, error)) func(http.ResponseWriter, *req) {
	return func(w http.ResponseWriter, r *req) {
		ctx, cancel := c.ctx(r)
		defer cancel()
		key := r.PostForm.Get("d")
		_, err := op(ctx, key)
		c.done(r, what, err, msg)
		back(w, r, key)
	}
}

func (c *Console) approve(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	key := r.PostForm.Get("d")
	code := strings.TrimSpace(r.PostForm.Get("code"))
	var err error
	switch {
	case code == "":
		c.sessions.addFlash(r.id, flash{Text: "approve: type the request code the user gave", Err: true})
	case key == "":
		// The page approves onto its phone; the API's "any free device"
		// is the CLI's.
		c.sessions.addFlash(r.id, flash{Text: "approve: no device named", Err: true})
	default:
		_, err = c.cfg.Ops.Approve(ctx, code, key, false)
		c.done(r, "approve", err, "Approved; the request's channel holds the phone.")
	}
	back(w, r, key)
}
