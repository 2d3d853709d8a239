package console

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/adb-connector/adb-connector/device/audit"
)

// defaultAuditRows is how many rows the audit page shows by default.
const defaultAuditRows = 100

// maxAuditRows bounds the audit page's limit (the CLI's own bound is
// higher, for files, not pages).
const maxAuditRows = 1000

// auditFilter reads the audit page's query (the `audit` command's flag
// names): every value is passed on as typed, and the API checks it as the
// command does (operator.API.Audit). A limit that is not a number in
// 1..maxAuditRows is an error.
func auditFilter(q url.Values) (audit.Filter, string) {
	f := audit.Filter{Since: q.Get("since"), Until: q.Get("until"), Device: q.Get("device"),
		Channel: q.Get("channel"), Tool: q.Get("tool"), Outcome: q.Get("outcome"), Limit: defaultAuditRows}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxAuditRows {
			return f, "limit: want a number in 1.." + strconv.Itoa(maxAuditRows)
		}
		f.Limit = n
	}
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return f, "after: want a row id"
		}
		f.AfterID = n
	}
	return f, ""
}

// filterQuery is the filter as the page's URL query (without after).
func filterQuery(f audit.Filter) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"since": f.Since, "until": f.Until, "device": f.Device,
		"channel": f.Channel, "tool": f.Tool, "outcome": f.Outcome} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Limit != defaultAuditRows {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	return q
}

func (c *Console) auditPage(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	d := c.data(r, "Audit", "audit")
	f, bad := auditFilter(r.URL.Query())
	f.AfterID = 0
	d.Filter = f
	if bad != "" {
		d.Error = bad
		c.render(w, http.StatusBadRequest, "audit", d)
		return
	}
	rows, err := c.cfg.Ops.Audit(ctx, f)
	if err != nil {
		d.Error = c.userError("audit", err)
		c.render(w, http.StatusBadRequest, "audit", d)
		return
	}
	d.Calls = rows
	for _, row := range rows {
		d.LastID = max(d.LastID, row.ID)
	}
	// A live tail only makes sense when new rows can match.
	if f.Until == "" {
		d.TailURL = "/audit/tail?" + filterQuery(f).Encode()
	}
	c.render(w, http.StatusOK, "audit", d)
}

// auditTail answers the rows written after the after parameter that match
// the filter, newest first, as table rows for the page's script.
func (c *Console) auditTail(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	f, bad := auditFilter(r.URL.Query())
	if bad == "" && r.URL.Query().Get("after") == "" {
		bad = "after: want a row id"
	}
	if bad != "" {
		http.Error(w, bad, http.StatusBadRequest)
		return
	}
	f.Limit = maxAuditRows
	rows, err := c.cfg.Ops.Audit(ctx, f)
	if err != nil {
		http.Error(w, c.userError("audit", err), http.StatusBadRequest)
		return
	}
	// The API returns a follower's rows oldest first; the page shows newest first.
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	c.renderPart(w, http.StatusOK, "audit", "tailrows", pageData{Calls: rows})
}

func (c *Console) policyPage(w http.ResponseWriter, r *req) {
	ctx, cancel := c.ctx(r)
	defer cancel()
	d := c.data(r, "Policy", "policy")
	d.Policy = c.cfg.Ops.Policy(ctx)
	c.render(w, http.StatusOK, "policy", d)
}
