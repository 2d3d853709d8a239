package files

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxRanges is the most range-specs a Range header may carry. Real clients
// (media players, download resumers) send one; RFC 9110 §14.2 lets a server
// reject "a set of many small ranges", a denial-of-service sign (§17.15).
// Uncapped, thousands of one-byte ranges make http.ServeContent send a
// multipart part header for each: a response many times the file's size.
const maxRanges = 16

// byteRange is a satisfiable range of a representation: first and last are
// byte offsets, both inclusive, first <= last < size.
type byteRange struct{ first, last int64 }

func (r byteRange) length() int64 { return r.last - r.first + 1 }

// rangeOutcome is what to do with a request's Range header.
type rangeOutcome int

const (
	// rangeIgnore: no usable Range; send the whole file (200).
	rangeIgnore rangeOutcome = iota
	// rangeServe: send the ranges returned with it (206).
	rangeServe
	// rangeReject: answer 416 Range Not Satisfiable.
	rangeReject
)

// parseRange decides a Range header value h (RFC 9110 §14.2) for a
// representation of size bytes. The handler hands http.ServeContent only
// the normalized form (rangeHeader), never the client's header: ServeContent
// accepts any number of ranges, merges none, and takes "+5" and "-0".
//
//   - No header, or a range unit other than "bytes" (compared
//     case-insensitively, §14.1): rangeIgnore. §14.2: an origin server MUST
//     ignore a Range with a unit it does not understand.
//   - A syntactically invalid ranges-specifier (§14.1.1; digits only, no
//     sign): rangeReject. §14.2 lets a server ignore or reject it; 416 is
//     also what ServeContent answers, so clients see one behaviour.
//   - More than maxRanges range-specs: rangeReject. §14.2 allows ignoring
//     or rejecting; we reject because §15.5.17 names "an excessive number of
//     small or overlapping ranges" as a reason for 416, it costs no file
//     bytes, and no real client sends that many, so none is harmed. (Ignoring
//     would send the whole file to a client that is broken or hostile.)
//   - No satisfiable range: rangeReject. A first-pos at or past the end and a
//     suffix-length of 0 (§14.1.2) are unsatisfiable; so is every range of an
//     empty file.
//   - Otherwise rangeServe with the satisfiable ranges, overlapping and
//     adjacent ones coalesced (§14.2 allows it), so their total never exceeds
//     size. The merged ranges keep the order of the earliest range-spec each
//     came from: §14.2 asks for parts "in the same order that the
//     corresponding range-spec appeared", excluding those coalesced.
func parseRange(h string, size int64) ([]byteRange, rangeOutcome) {
	if h == "" {
		return nil, rangeIgnore
	}
	unit, set, ok := strings.Cut(h, "=")
	if !ok || !isToken(unit) {
		return nil, rangeReject
	}
	if !strings.EqualFold(unit, "bytes") {
		return nil, rangeIgnore
	}
	var ranges []byteRange
	specs := 0
	for spec := range strings.SplitSeq(set, ",") {
		// RFC 9110 §5.6.1: list elements are separated by OWS "," OWS, and
		// a recipient ignores empty elements.
		spec = strings.Trim(spec, " \t")
		if spec == "" {
			continue
		}
		if specs++; specs > maxRanges {
			return nil, rangeReject
		}
		first, last, ok := strings.Cut(spec, "-")
		if !ok {
			return nil, rangeReject
		}
		if first == "" { // suffix-range: the last n bytes
			n, ok := parseDigits(last)
			if !ok {
				return nil, rangeReject
			}
			if n == 0 || size == 0 {
				continue // unsatisfiable (§14.1.2)
			}
			ranges = append(ranges, byteRange{size - min(n, size), size - 1})
			continue
		}
		f, ok := parseDigits(first)
		if !ok {
			return nil, rangeReject
		}
		l := int64(math.MaxInt64)
		if last != "" {
			if l, ok = parseDigits(last); !ok || l < f {
				return nil, rangeReject // §14.1.1: last-pos < first-pos is invalid
			}
		}
		if f >= size {
			continue // unsatisfiable (§14.1.2)
		}
		ranges = append(ranges, byteRange{f, min(l, size-1)})
	}
	if specs == 0 {
		return nil, rangeReject // range-set is 1#range-spec: at least one
	}
	if len(ranges) == 0 {
		return nil, rangeReject
	}
	return coalesce(ranges), rangeServe
}

// coalesce merges overlapping and adjacent ranges. Each merged range takes
// the position of the earliest range in rs it absorbed.
func coalesce(rs []byteRange) []byteRange {
	type span struct {
		byteRange
		pos int // index in rs of the earliest range merged into it
	}
	sorted := make([]span, len(rs))
	for i, r := range rs {
		sorted[i] = span{r, i}
	}
	slices.SortFunc(sorted, func(a, b span) int { return cmp.Compare(a.first, b.first) })
	merged := []span{sorted[0]}
	for _, s := range sorted[1:] {
		m := &merged[len(merged)-1]
		if s.first > m.last+1 {
			merged = append(merged, s)
			continue
		}
		m.last = max(m.last, s.last)
		m.pos = min(m.pos, s.pos)
	}
	slices.SortFunc(merged, func(a, b span) int { return cmp.Compare(a.pos, b.pos) })
	out := make([]byteRange, len(merged))
	for i, m := range merged {
		out[i] = m.byteRange
	}
	return out
}

// rangeHeader formats rs as the absolute Range value handed to
// http.ServeContent.
func rangeHeader(rs []byteRange) string {
	var b strings.Builder
	b.WriteString("bytes=")
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(r.first, 10))
		b.WriteByte('-')
		b.WriteString(strconv.FormatInt(r.last, 10))
	}
	return b.String()
}

// multipartSize bounds from above the body of a multipart/byteranges
// response for rs (RFC 9110 §14.6): per part a delimiter line, a
// Content-Range and a Content-Type header, a blank line and the bytes, then
// the close delimiter. The boundary is counted at its RFC 2046 §5.1.1
// maximum of 70 characters, more than mime/multipart uses.
func multipartSize(rs []byteRange, contentType string, size int64) int64 {
	const boundary = 70
	sizeLen := int64(len(strconv.FormatInt(size, 10)))
	var n int64
	for _, r := range rs {
		n += int64(len("\r\n--")) + boundary + int64(len("\r\n"))
		n += int64(len("Content-Range: bytes -/\r\n")) + 3*sizeLen // first, last < size
		n += int64(len("Content-Type: \r\n")) + int64(len(contentType))
		n += int64(len("\r\n")) + r.length()
	}
	return n + int64(len("\r\n--")) + boundary + int64(len("--\r\n"))
}

// parseDigits parses 1*DIGIT (RFC 9110 §14.1.1), saturating at MaxInt64: a
// position too large for int64 is past the end of any file, not an error.
// Unlike strconv.ParseInt it refuses a sign.
func parseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			n = math.MaxInt64
			continue
		}
		n = n*10 + d
	}
	return n, true
}

// isToken reports whether s is an RFC 9110 §5.6.2 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
