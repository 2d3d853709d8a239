package files

import (
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	defaultMIMEType = "application/octet-stream"
	maxFilenameLen  = 200 // bytes
)

// extensions names the files whose Meta has no Filename.
var extensions = map[string]string{
	"image/png":        ".png",
	"image/jpeg":       ".jpg",
	"image/webp":       ".webp",
	"image/gif":        ".gif",
	"video/mp4":        ".mp4",
	"text/plain":       ".txt",
	"application/json": ".json",
	"application/xml":  ".xml",
	"text/xml":         ".xml",
}

// cleanMIMEType returns a canonical media type, or application/octet-stream
// when s is empty or does not parse.
func cleanMIMEType(s string) string {
	mt, params, err := mime.ParseMediaType(s)
	if err != nil {
		return defaultMIMEType
	}
	if out := mime.FormatMediaType(mt, params); out != "" {
		return out
	}
	return defaultMIMEType
}

// cleanFilename keeps the last path element of name, without control
// characters or invalid UTF-8, at most maxFilenameLen bytes. An empty result
// becomes "file" plus an extension for the MIME type.
func cleanFilename(name, mimeType string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToValidUTF8(name, "")
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	for len(name) > maxFilenameLen {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || strings.Trim(name, ".") == "" {
		mt, _, _ := mime.ParseMediaType(mimeType)
		ext, ok := extensions[mt]
		if !ok {
			ext = ".bin"
		}
		name = "file" + ext
	}
	return name
}

// contentDisposition is an RFC 6266 attachment header value: an ASCII
// filename for old clients and, when the name is not plain ASCII, a UTF-8
// filename* (RFC 8187).
func contentDisposition(filename string) string {
	var ascii strings.Builder
	plain := true
	for _, r := range filename {
		switch {
		case r == '"' || r == '\\' || r == '%' || r < 0x20 || r > 0x7e:
			ascii.WriteByte('_')
			plain = false
		default:
			ascii.WriteRune(r)
		}
	}
	v := `attachment; filename="` + ascii.String() + `"`
	if plain {
		return v
	}
	var ext strings.Builder
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(filename); i++ {
		c := filename[i]
		if isAttrChar(c) {
			ext.WriteByte(c)
			continue
		}
		ext.WriteByte('%')
		ext.WriteByte(hex[c>>4])
		ext.WriteByte(hex[c&0xf])
	}
	return v + "; filename*=UTF-8''" + ext.String()
}

// isAttrChar reports whether c may appear unescaped in an RFC 8187 value.
func isAttrChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", c) >= 0
}
