package console

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// cookieName is the session cookie. It holds a random id only.
const cookieName = "adbc_console"

// session is one logged-in browser: its CSRF token and the messages to
// show on its next page (a pairing code among them: kept in memory until
// shown once, never in a URL).
type session struct {
	csrf    string
	expires time.Time
	created time.Time
	flash   []flash
}

type flash struct {
	Text string
	Code string // a pairing code to show large; "" none
	Err  bool
}

// sessions is the in-memory session table. Safe for concurrent use.
type sessions struct {
	now func() time.Time
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]*session // by the id's SHA-256, so a timing leak of the map says nothing of an id
}

func newSessions(now func() time.Time, ttl time.Duration) *sessions {
	return &sessions{now: now, ttl: ttl, m: map[string]*session{}}
}

func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b[:])
}

func idKey(id string) string {
	h := sha256.Sum256([]byte(id))
	return string(h[:])
}

// create starts a session and returns its id.
func (s *sessions) create() string {
	id := randomToken()
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.m {
		if !now.Before(v.expires) {
			delete(s.m, k)
		}
	}
	if len(s.m) >= maxSessions {
		var oldest string
		var at time.Time
		for k, v := range s.m {
			if oldest == "" || v.created.Before(at) {
				oldest, at = k, v.created
			}
		}
		delete(s.m, oldest)
	}
	s.m[idKey(id)] = &session{csrf: randomToken(), expires: now.Add(s.ttl), created: now}
	return id
}

// get returns the live session of id (a copy of its CSRF token and its
// flash, which it clears when take is set).
func (s *sessions) get(id string, take bool) (csrf string, fl []flash, ok bool) {
	if id == "" {
		return "", nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.m[idKey(id)]
	if v == nil {
		return "", nil, false
	}
	if !s.now().Before(v.expires) {
		delete(s.m, idKey(id))
		return "", nil, false
	}
	fl = v.flash
	if take {
		v.flash = nil
	}
	return v.csrf, fl, true
}

func (s *sessions) addFlash(id string, f flash) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.m[idKey(id)]; v != nil && len(v.flash) < 8 {
		v.flash = append(v.flash, f)
	}
}

func (s *sessions) delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, idKey(id))
}

// sessionID is the request's session cookie ("" none).
func sessionID(r *http.Request) string {
	ck, err := r.Cookie(cookieName)
	if err != nil {
		return ""
	}
	return ck.Value
}

// req is a request of a logged-in operator.
type req struct {
	*http.Request
	id    string
	csrf  string
	flash []flash
}

// page wraps a GET handler of a page: without a live session a browser
// is sent to the login page, and the page's script (which asks with
// X-Console-Live) gets 401.
func (c *Console) page(h func(http.ResponseWriter, *req)) http.HandlerFunc {
	return c.get(h, false)
}

// part wraps a GET handler of what a page's script or image fetches (a
// thumbnail, audit rows): without a live session, 401.
func (c *Console) part(h func(http.ResponseWriter, *req)) http.HandlerFunc {
	return c.get(h, true)
}

func (c *Console) get(h func(http.ResponseWriter, *req), part bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := sessionID(r)
		live := part || r.Header.Get("X-Console-Live") != ""
		// A refresh must not eat the messages its page is showing.
		csrf, fl, ok := c.sessions.get(id, !live)
		if !ok {
			if live {
				http.Error(w, "not logged in", http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		h(w, &req{Request: r, id: id, csrf: csrf, flash: fl})
	}
}

// action wraps a POST handler: it runs only for a live session whose CSRF
// token the form carries and from this origin; otherwise 403 and nothing
// is done.
func (c *Console) action(h func(http.ResponseWriter, *req)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		id := sessionID(r)
		csrf, _, ok := c.sessions.get(id, false)
		if !ok {
			c.log.Warn("console action refused: not logged in", "path", r.URL.Path, "remote", remoteHost(r))
			http.Error(w, "forbidden: not logged in", http.StatusForbidden)
			return
		}
		if !sameOrigin(r) {
			c.log.Warn("console action refused: cross-origin", "path", r.URL.Path, "remote", remoteHost(r))
			http.Error(w, "forbidden: cross-origin request", http.StatusForbidden)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		got := r.PostForm.Get("csrf")
		if subtle.ConstantTimeCompare([]byte(got), []byte(csrf)) != 1 {
			c.log.Warn("console action refused: bad CSRF token", "path", r.URL.Path, "remote", remoteHost(r))
			http.Error(w, "forbidden: bad or missing CSRF token; reload the page", http.StatusForbidden)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		h(w, &req{Request: r, id: id, csrf: csrf})
	}
}

// sameOrigin refuses a POST that the browser says comes from another site
// (Sec-Fetch-Site) or whose Origin names another host. Under this
// console's Referrer-Policy no-referrer a browser sends "Origin: null" on
// its own forms, so null or no Origin says nothing and the CSRF token
// decides.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

func remoteHost(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

// tokenEqual compares the token given at login with the operator's in
// constant time (of their SHA-256, so the length leaks nothing either).
func tokenEqual(given, want string) bool {
	a, b := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, _, ok := c.sessions.get(sessionID(r), false); ok {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	c.render(w, http.StatusOK, "login", pageData{Title: "Log in"})
}

// login checks the token (POSTed, never in a URL) and starts a session.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	w.Header().Set("Cache-Control", "no-store")
	host := remoteHost(r)
	if ok, retry := c.logins.Allow(c.cfg.Now(), host); !ok {
		w.Header().Set("Retry-After", retryAfter(retry))
		c.render(w, http.StatusTooManyRequests, "login", pageData{Title: "Log in", Error: "Too many attempts; try again in a minute."})
		return
	}
	if !sameOrigin(r) {
		http.Error(w, "forbidden: cross-origin request", http.StatusForbidden)
		return
	}
	if err := r.ParseForm(); err != nil || !tokenEqual(r.PostForm.Get("token"), c.cfg.Token) {
		c.log.Warn("console login refused", "remote", host)
		c.render(w, http.StatusUnauthorized, "login", pageData{Title: "Log in", Error: "Wrong token."})
		return
	}
	if old := sessionID(r); old != "" {
		c.sessions.delete(old)
	}
	id := c.sessions.create()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, MaxAge: int(c.cfg.SessionTTL / time.Second)})
	c.log.Info("console login", "remote", host)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (c *Console) logout(w http.ResponseWriter, r *req) {
	c.sessions.delete(r.id)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r.Request, "/login", http.StatusSeeOther)
}

func retryAfter(d time.Duration) string {
	return strconv.Itoa(int(d/time.Second) + 1)
}
