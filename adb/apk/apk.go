// Package apk reads what an APK says of itself on the host, before anything
// is sent to a phone: the package name, versionCode and versionName of its
// AndroidManifest.xml. An APK is a zip archive whose AndroidManifest.xml is
// compiled Android binary XML (AXML); the decoder here is strict and reads
// only the <manifest> element, as the format is laid out in AOSP
// frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h
// (ResChunk_header, ResStringPool_header, ResXMLTree_node,
// ResXMLTree_attrExt, ResXMLTree_attribute, Res_value).
package apk

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// ErrNotAPK: the file is not a zip archive holding an AndroidManifest.xml.
var ErrNotAPK = errors.New("apk: not an APK (no zip archive with an AndroidManifest.xml)")

// ErrManifest: the AndroidManifest.xml is not binary XML this decoder
// reads, or its <manifest> lacks a valid package name or versionCode.
var ErrManifest = errors.New("apk: unreadable AndroidManifest.xml")

// MaxManifestBytes bounds the uncompressed AndroidManifest.xml read (real
// ones are a few to a few hundred KiB), so a hostile archive cannot make
// the host inflate gigabytes.
const MaxManifestBytes = 4 << 20

// Manifest is what the <manifest> element says of the app.
type Manifest struct {
	// Package is the package attribute, a valid package name.
	Package string
	// VersionCode is android:versionCode, with android:versionCodeMajor
	// (Android 9) as its high 32 bits: PackageInfo.getLongVersionCode.
	VersionCode int64
	// VersionName is android:versionName as written; "" when absent or,
	// with VersionNameRef, when it names a string resource.
	VersionName string
	// VersionNameRef: versionName refers to a resource (@string/...) that
	// only resources.arsc resolves; the phone reports the resolved value
	// once installed (dumpsys package), the shelf reports it unknown.
	VersionNameRef bool
}

// Read reads the manifest of the APK r of size bytes. A file that is not
// a zip archive or has no AndroidManifest.xml wraps ErrNotAPK; a manifest
// that does not decode wraps ErrManifest.
func Read(r io.ReaderAt, size int64) (Manifest, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return Manifest{}, fmt.Errorf("%w: %v", ErrNotAPK, err)
	}
	for _, f := range z.File {
		if f.Name != "AndroidManifest.xml" {
			continue
		}
		if f.UncompressedSize64 > MaxManifestBytes {
			return Manifest{}, fmt.Errorf("%w: %d bytes, more than %d", ErrManifest, f.UncompressedSize64, MaxManifestBytes)
		}
		rc, err := f.Open()
		if err != nil {
			return Manifest{}, fmt.Errorf("%w: %v", ErrNotAPK, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, MaxManifestBytes+1))
		rc.Close()
		if err != nil {
			return Manifest{}, fmt.Errorf("%w: %v", ErrNotAPK, err)
		}
		return Decode(b)
	}
	return Manifest{}, ErrNotAPK
}

// Chunk types and value types of ResourceTypes.h.
const (
	resStringPoolType   = 0x0001
	resXMLType          = 0x0003
	resXMLResourceMap   = 0x0180
	resXMLStartElement  = 0x0102
	resXMLFirstNodeType = 0x0100
	resXMLLastNodeType  = 0x017f

	typeReference = 0x01
	typeString    = 0x03
	typeIntDec    = 0x10
	typeIntHex    = 0x11

	utf8Flag = 1 << 8

	noEntry = 0xffffffff
)

// Resource ids of the android: attributes read (AOSP
// frameworks/base/core/res/res/values/public.xml): Android's own parser
// finds them by id, not by name.
const (
	attrVersionCode      = 0x0101021b
	attrVersionName      = 0x0101021c
	attrVersionCodeMajor = 0x01010576
)

// Decode reads the <manifest> element of a binary XML AndroidManifest.xml.
// Any error wraps ErrManifest.
func Decode(b []byte) (Manifest, error) {
	m, err := decode(b)
	if err != nil {
		return Manifest{}, fmt.Errorf("%w: %s", ErrManifest, err)
	}
	return m, nil
}

// chunk is a ResChunk_header and the bytes it spans.
type chunk struct {
	typ        uint16
	headerSize int
	data       []byte // the whole chunk, header included
}

// readChunk reads the chunk at the start of b, checking that its header
// and size fit in b.
func readChunk(b []byte) (chunk, error) {
	if len(b) < 8 {
		return chunk{}, errors.New("truncated chunk header")
	}
	typ := binary.LittleEndian.Uint16(b)
	hs := int(binary.LittleEndian.Uint16(b[2:]))
	size := binary.LittleEndian.Uint32(b[4:])
	if hs < 8 || uint64(size) > uint64(len(b)) || int(size) < hs || size%4 != 0 {
		return chunk{}, fmt.Errorf("chunk 0x%04x: header %d, size %d of %d bytes left", typ, hs, size, len(b))
	}
	return chunk{typ: typ, headerSize: hs, data: b[:size]}, nil
}

func decode(b []byte) (Manifest, error) {
	doc, err := readChunk(b)
	if err != nil {
		return Manifest{}, err
	}
	if doc.typ != resXMLType {
		return Manifest{}, fmt.Errorf("not binary XML (chunk type 0x%04x)", doc.typ)
	}
	var (
		pool  *stringPool
		resID []uint32
	)
	for rest := doc.data[doc.headerSize:]; len(rest) > 0; {
		c, err := readChunk(rest)
		if err != nil {
			return Manifest{}, err
		}
		rest = rest[len(c.data):]
		switch {
		case c.typ == resStringPoolType && pool == nil:
			if pool, err = readPool(c); err != nil {
				return Manifest{}, err
			}
		case c.typ == resXMLResourceMap:
			for i := c.headerSize; i+4 <= len(c.data); i += 4 {
				resID = append(resID, binary.LittleEndian.Uint32(c.data[i:]))
			}
		case c.typ == resXMLStartElement:
			if pool == nil {
				return Manifest{}, errors.New("element before the string pool")
			}
			return manifestElement(c, pool, resID)
		case c.typ < resXMLFirstNodeType || c.typ > resXMLLastNodeType:
			return Manifest{}, fmt.Errorf("unexpected chunk 0x%04x", c.typ)
		}
	}
	return Manifest{}, errors.New("no element")
}

// manifestElement reads the first element, which must be <manifest>.
func manifestElement(c chunk, pool *stringPool, resID []uint32) (Manifest, error) {
	// ResXMLTree_node (header, lineNumber, comment) then ResXMLTree_attrExt.
	const attrExtSize = 20
	if c.headerSize < 16 || len(c.data) < c.headerSize+attrExtSize {
		return Manifest{}, errors.New("truncated start element")
	}
	ext := c.data[c.headerSize:]
	if name, err := pool.get(binary.LittleEndian.Uint32(ext[4:])); err != nil || name != "manifest" {
		return Manifest{}, fmt.Errorf("first element is %q, not manifest", name)
	}
	start := int(binary.LittleEndian.Uint16(ext[8:]))
	size := int(binary.LittleEndian.Uint16(ext[10:]))
	count := int(binary.LittleEndian.Uint16(ext[12:]))
	if size < attrExtSize || start+count*size > len(ext) {
		return Manifest{}, errors.New("attributes outside the element")
	}
	var (
		m            Manifest
		code, major  uint32
		haveCode     bool
		seenName     bool
		seenPkgAttr  bool
		attrIdentity = func(name uint32) uint32 {
			if int64(name) < int64(len(resID)) {
				return resID[name]
			}
			return 0
		}
	)
	for i := range count {
		a := ext[start+i*size:]
		ns := binary.LittleEndian.Uint32(a)
		name := binary.LittleEndian.Uint32(a[4:])
		raw := binary.LittleEndian.Uint32(a[8:])
		typ := a[15]
		data := binary.LittleEndian.Uint32(a[16:])
		switch attrIdentity(name) {
		case attrVersionCode:
			if typ != typeIntDec && typ != typeIntHex {
				return Manifest{}, fmt.Errorf("versionCode of type 0x%02x, not an integer", typ)
			}
			code, haveCode = data, true
		case attrVersionCodeMajor:
			if typ != typeIntDec && typ != typeIntHex {
				return Manifest{}, fmt.Errorf("versionCodeMajor of type 0x%02x, not an integer", typ)
			}
			major = data
		case attrVersionName:
			if seenName {
				return Manifest{}, errors.New("versionName given twice")
			}
			seenName = true
			switch typ {
			case typeString:
				s, err := pool.get(data)
				if err != nil {
					return Manifest{}, fmt.Errorf("versionName: %v", err)
				}
				m.VersionName = s
			case typeReference:
				m.VersionNameRef = true
			default:
				// aapt keeps a raw string beside a typed value
				// (versionName="1" compiles to an integer).
				s, err := pool.get(raw)
				if err != nil {
					return Manifest{}, fmt.Errorf("versionName of type 0x%02x without its text", typ)
				}
				m.VersionName = s
			}
		case 0:
			n, err := pool.get(name)
			if err != nil || n != "package" || ns != noEntry {
				continue
			}
			if seenPkgAttr {
				return Manifest{}, errors.New("package given twice")
			}
			seenPkgAttr = true
			idx := raw
			if typ == typeString {
				idx = data
			}
			if m.Package, err = pool.get(idx); err != nil {
				return Manifest{}, fmt.Errorf("package: %v", err)
			}
		}
	}
	switch {
	case !parse.ValidPackage(m.Package):
		return Manifest{}, fmt.Errorf("package %q is not a package name", clip(m.Package))
	case !haveCode:
		return Manifest{}, errors.New("no android:versionCode")
	}
	m.VersionCode = int64(major)<<32 | int64(code)
	return m, nil
}

// clip shortens a name from the file for an error message.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// stringPool is a ResStringPool: strings decoded on demand.
type stringPool struct {
	data    []byte // the chunk
	offsets []uint32
	start   int // stringsStart, from the chunk's start
	utf8    bool
}

func readPool(c chunk) (*stringPool, error) {
	const headerSize = 28
	if c.headerSize < headerSize {
		return nil, errors.New("short string pool header")
	}
	h := c.data
	count := binary.LittleEndian.Uint32(h[8:])
	flags := binary.LittleEndian.Uint32(h[16:])
	start := binary.LittleEndian.Uint32(h[20:])
	if uint64(c.headerSize)+4*uint64(count) > uint64(start) || uint64(start) > uint64(len(h)) {
		return nil, fmt.Errorf("string pool of %d strings from %d does not fit its %d bytes", count, start, len(h))
	}
	p := &stringPool{data: h, start: int(start), utf8: flags&utf8Flag != 0, offsets: make([]uint32, count)}
	for i := range p.offsets {
		p.offsets[i] = binary.LittleEndian.Uint32(h[c.headerSize+4*i:])
	}
	return p, nil
}

// get decodes string i.
func (p *stringPool) get(i uint32) (string, error) {
	if int64(i) >= int64(len(p.offsets)) {
		return "", fmt.Errorf("string %d of a pool of %d", i, len(p.offsets))
	}
	off := uint64(p.start) + uint64(p.offsets[i])
	if off >= uint64(len(p.data)) {
		return "", fmt.Errorf("string %d outside its pool", i)
	}
	b := p.data[off:]
	if p.utf8 {
		return utf8String(b)
	}
	return utf16String(b)
}

// utf8String is a UTF-8 pool entry: its length in UTF-16 units, its length
// in bytes (each one byte, or two with the high bit set), the bytes, a 0.
func utf8String(b []byte) (string, error) {
	_, b, ok := len8(b)
	if !ok {
		return "", errors.New("truncated string length")
	}
	n, b, ok := len8(b)
	if !ok || n >= len(b) || b[n] != 0 {
		return "", errors.New("string runs past its pool")
	}
	if !utf8.Valid(b[:n]) {
		return "", errors.New("string is not UTF-8")
	}
	return string(b[:n]), nil
}

func len8(b []byte) (int, []byte, bool) {
	switch {
	case len(b) >= 1 && b[0]&0x80 == 0:
		return int(b[0]), b[1:], true
	case len(b) >= 2:
		return int(b[0]&0x7f)<<8 | int(b[1]), b[2:], true
	}
	return 0, nil, false
}

// utf16String is a UTF-16 pool entry: its length in units (one unit, or
// two with the high bit set), the units, a 0 unit.
func utf16String(b []byte) (string, error) {
	if len(b) < 2 {
		return "", errors.New("truncated string length")
	}
	n := int(binary.LittleEndian.Uint16(b))
	b = b[2:]
	if n&0x8000 != 0 {
		if len(b) < 2 {
			return "", errors.New("truncated string length")
		}
		n = (n&0x7fff)<<16 | int(binary.LittleEndian.Uint16(b))
		b = b[2:]
	}
	if n >= len(b)/2 || binary.LittleEndian.Uint16(b[2*n:]) != 0 {
		return "", errors.New("string runs past its pool")
	}
	u := make([]uint16, n)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u)), nil
}
