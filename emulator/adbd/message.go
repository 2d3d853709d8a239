package adbd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Wire commands (AOSP adb protocol.txt). Each is four ASCII bytes read as a
// little-endian uint32.
const (
	cmdSYNC = 0x434e5953 // "SYNC" (obsolete)
	cmdCNXN = 0x4e584e43 // "CNXN"
	cmdAUTH = 0x48545541 // "AUTH"
	cmdOPEN = 0x4e45504f // "OPEN"
	cmdOKAY = 0x59414b4f // "OKAY"
	cmdCLSE = 0x45534c43 // "CLSE"
	cmdWRTE = 0x45545257 // "WRTE"
	cmdSTLS = 0x534c5453 // "STLS"
)

// AUTH message types (arg0 of an AUTH message).
const (
	authToken        = 1
	authSignature    = 2
	authRSAPublicKey = 3
)

const (
	// protocolVersion is A_VERSION with skip-checksum (A_VERSION_SKIP_CHECKSUM).
	protocolVersion = 0x01000001
	// defaultMaxData is MAX_PAYLOAD of adb 29: 1 MiB.
	defaultMaxData = 1 << 20
	// headerSize is the fixed size of a message header.
	headerSize = 24
)

// Decoder errors; they wrap ErrProtocol.
var (
	// ErrProtocol reports a peer that broke the ADB wire protocol.
	ErrProtocol    = errors.New("adb protocol error")
	errBadMagic    = fmt.Errorf("%w: bad magic", ErrProtocol)
	errTooLong     = fmt.Errorf("%w: payload too long", ErrProtocol)
	errBadChecksum = fmt.Errorf("%w: bad checksum", ErrProtocol)
)

// message is one ADB transport message: a 24-byte header and its payload.
type message struct {
	command uint32
	arg0    uint32
	arg1    uint32
	data    []byte
}

// commandName returns the four-letter name of a command, for logs.
func commandName(c uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], c)
	for _, x := range b {
		if x < 'A' || x > 'Z' {
			return fmt.Sprintf("0x%08x", c)
		}
	}
	return string(b[:])
}

// checksum is the adb "crc32": the plain sum of the payload bytes.
func checksum(data []byte) uint32 {
	var s uint32
	for _, b := range data {
		s += uint32(b)
	}
	return s
}

// readMessage decodes one message from r. Payloads longer than maxData are
// refused. A non-zero data_crc32 is checked (hosts with protocol version >=
// 0x01000001 send 0). The returned payload is freshly allocated.
func readMessage(r io.Reader, maxData uint32) (message, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return message{}, err
	}
	m := message{
		command: binary.LittleEndian.Uint32(h[0:]),
		arg0:    binary.LittleEndian.Uint32(h[4:]),
		arg1:    binary.LittleEndian.Uint32(h[8:]),
	}
	n := binary.LittleEndian.Uint32(h[12:])
	sum := binary.LittleEndian.Uint32(h[16:])
	if binary.LittleEndian.Uint32(h[20:]) != m.command^0xffffffff {
		return message{}, errBadMagic
	}
	if n > maxData {
		return message{}, fmt.Errorf("%w (%d > %d)", errTooLong, n, maxData)
	}
	if n > 0 {
		m.data = make([]byte, n)
		if _, err := io.ReadFull(r, m.data); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return message{}, err
		}
	}
	if sum != 0 && sum != checksum(m.data) {
		return message{}, errBadChecksum
	}
	return m, nil
}

// appendMessage encodes m (header then payload) onto buf. The checksum is
// always filled in: it costs little and suits hosts of any version.
func appendMessage(buf []byte, m message) []byte {
	var h [headerSize]byte
	binary.LittleEndian.PutUint32(h[0:], m.command)
	binary.LittleEndian.PutUint32(h[4:], m.arg0)
	binary.LittleEndian.PutUint32(h[8:], m.arg1)
	binary.LittleEndian.PutUint32(h[12:], uint32(len(m.data)))
	binary.LittleEndian.PutUint32(h[16:], checksum(m.data))
	binary.LittleEndian.PutUint32(h[20:], m.command^0xffffffff)
	buf = append(buf, h[:]...)
	return append(buf, m.data...)
}

// fixHeader sets the length and checksum fields of an encoded header h for
// payload data sent separately; the checksum is 0 when skipSum (hosts of
// version >= 0x01000001 do not check it).
func fixHeader(h []byte, data []byte, skipSum bool) {
	binary.LittleEndian.PutUint32(h[12:], uint32(len(data)))
	sum := uint32(0)
	if !skipSum {
		sum = checksum(data)
	}
	binary.LittleEndian.PutUint32(h[16:], sum)
}
