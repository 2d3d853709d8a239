// Package helper is the wire protocol of the connector's resident phone
// helper, version 1: the program shipped inside the binary (Jar), pushed to
// /data/local/tmp and run there with app_process as the adb shell user,
// which answers UI tree, input, text, clipboard and screenshot requests over
// its stdin and stdout. This package encodes requests and decodes frames;
// it does no I/O of its own beyond the reader and writer it is given, and
// knows nothing of adb streams (package adb runs the helper) nor of xAgent.
//
// Framing (both directions, integers big-endian as java.io.DataInputStream
// reads them): u32 length (5..MaxFrame, the bytes that follow), u8 kind,
// u32 id, then length-5 bytes of body. Strings are u32 n (<= MaxString) and
// n bytes of UTF-8; booleans are u8 0/1. The helper first sends HELLO
// (KindHello, id 0); the host then sends one request (KindRequest, body
// starting with the Op) at a time and reads its answer (KindOK with the
// op's fields, or KindError with a code and a message) before the next.
package helper
