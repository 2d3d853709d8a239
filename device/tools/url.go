package tools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
)

// maxURLBytes bounds android_open_url's url.
const maxURLBytes = 2048

// defaultURLSchemes are the schemes android_open_url opens when
// Config.URLSchemes is empty: web pages only. intent: URLs can start any
// exported activity with any extras, file: and content: read the phone's
// storage, javascript: runs in whatever page is open.
var defaultURLSchemes = []string{"http", "https"}

// msgNoHandler is the not_supported message of a URL no app opens.
const msgNoHandler = "no app on the phone opens this URL (no activity handles it); nothing was opened"

// openURLResult is android_open_url's result.
type openURLResult struct {
	Opened  bool   `json:"opened"`
	Package string `json:"package"` // the app that handled it ("android": the phone shows a chooser)
	*Verified
}

type openURLArgs struct {
	URL string `json:"url"`
	verifyArgs
}

// urlSchemes is the operator's allowed set, lower case.
func (t *Tools) urlSchemes() []string {
	if len(t.cfg.URLSchemes) == 0 {
		return defaultURLSchemes
	}
	out := make([]string, len(t.cfg.URLSchemes))
	for i, s := range t.cfg.URLSchemes {
		out[i] = strings.ToLower(s)
	}
	return out
}

func openURLTool(t *Tools) *toolDef {
	return declare(t, decl[openURLArgs]{
		id: "android_open_url", title: "Open a URL on the Android phone",
		required: []string{"url"}, run: (*Tools).runOpenURL,
		props: map[string]any{
			"url": map[string]any{"type": "string", "minLength": 1, "maxLength": maxURLBytes,
				"description": "An absolute URL, percent-encoded (no spaces or control characters), e.g. https://example.com/page."},
		},
		description: "Opens a URL on the bound phone with the app that handles it (a browser for web pages) and " +
			"returns that app's package (\"android\" when the phone asks the user to choose). Only the schemes " +
			"the operator allows (" + strings.Join(t.urlSchemes(), ", ") + "); others (intent:, file:, content:, " +
			"javascript:, ...) are refused with not_permitted. verify: true waits up to settle_ms for the UI to " +
			"change. Repeating a call with the same tool_call_id returns the first result without opening it again.",
	})
}

// checkURL accepts an absolute URL of at most maxURLBytes, without spaces
// or control characters (a URL carries them percent-encoded), whose scheme
// is in schemes (lower case); http and https need a host. Syntax is an
// *argError, a scheme outside the set a *policyError (not_permitted). The
// URL is never echoed.
func checkURL(raw string, schemes []string) error {
	if len(raw) > maxURLBytes {
		return &argError{Field: "url", Reason: fmt.Sprintf("is longer than %d bytes", maxURLBytes)}
	}
	for _, r := range raw {
		// Format characters (zero-width, bidi overrides) make a URL read
		// other than it goes; invalid UTF-8 is RuneError.
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return &argError{Field: "url", Reason: "has a space, control or invisible character (percent-encode it, e.g. %20)"}
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return &argError{Field: "url", Reason: "is not a valid absolute URL (scheme://host/path, percent-encoded)"}
	}
	scheme := strings.ToLower(u.Scheme)
	if !slices.Contains(schemes, scheme) {
		return &policyError{Rule: ruleURLScheme, Message: fmt.Sprintf("URLs of scheme %q are not allowed by the operator's policy "+
			"(allowed: %s); open web pages only", scheme, strings.Join(schemes, ", "))}
	}
	if (scheme == "http" || scheme == "https") && u.Host == "" {
		return &argError{Field: "url", Reason: "has no host (https://host/path)"}
	}
	return nil
}

func (t *Tools) runOpenURL(ctx context.Context, inv *invocation, a openURLArgs) (any, error) {
	if err := checkURL(a.URL, t.schemesFor(inv)); err != nil {
		return nil, err
	}
	if err := a.verifyArgs.check(); err != nil {
		return nil, err
	}
	before, err := t.beforeAction(ctx, inv, a.verifyArgs)
	if err != nil {
		return nil, err
	}
	handler, err := inv.dev.OpenURL(ctx, a.URL)
	if errors.Is(err, adb.ErrNoHandler) {
		return nil, &connector.Error{Code: codeNotSupported, Message: msgNoHandler}
	}
	if err != nil {
		return nil, err
	}
	res := openURLResult{Opened: true, Package: handler.Package}
	if res.Package == "" {
		// This am does not report the activity: the app in front is the handler.
		if res.Package, _, err = inv.dev.ForegroundApp(ctx); err != nil {
			return nil, err
		}
	}
	res.Verified, err = t.afterAction(ctx, inv, a.verifyArgs, before)
	return res, err
}
