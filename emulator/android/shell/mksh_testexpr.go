package shell

import (
	"slices"
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// This is mksh's test/[ builtin (mksh R59 funcs.c: c_test, test_parse,
// test_oexpr ... test_primary, test_eval, ptest_error), what `test` and
// `[` run on a phone: POSIX's special cases for up to four operands, the
// expression parser beyond, status 2 and "/system/bin/sh: [: OP: MSG" on
// a malformed expression, "[: missing ]" without the closing bracket.

// mkshTestErrExit is T_ERR_EXIT.
const mkshTestErrExit = 2

var (
	mkshUnaryOps  = []string{"-a", "-b", "-c", "-d", "-e", "-f", "-G", "-g", "-H", "-h", "-k", "-L", "-n", "-O", "-o", "-p", "-r", "-S", "-s", "-t", "-u", "-v", "-w", "-x", "-z"}
	mkshBinaryOps = []string{"=", "==", "!=", "<", ">", "-eq", "-ne", "-gt", "-ge", "-lt", "-le", "-ef", "-nt", "-ot"}
)

// testEnv is Test_env: the operands and the read position.
type testEnv struct {
	c      *Ctx
	name   string // "test" or "["
	wp     []string
	pos    int
	failed bool
}

func (te *testEnv) more() bool { return te.pos < len(te.wp) }

// isa is ptest_isa: it accepts the current operand when it is tok.
func (te *testEnv) isa(tok string) bool {
	if te.more() && te.wp[te.pos] == tok {
		te.pos++
		return true
	}
	return false
}

// isOp accepts the current operand when it is an operator of ops.
func (te *testEnv) isOp(ops []string) string {
	if te.more() && slices.Contains(ops, te.wp[te.pos]) {
		te.pos++
		return te.wp[te.pos-1]
	}
	return ""
}

// fail is ptest_error: "OP: MSG" for the operand at pos+ofs, else MSG.
func (te *testEnv) fail(ofs int, msg string) {
	te.failed = true
	if i := te.pos + ofs; i >= 0 && i < len(te.wp) {
		te.c.shErr(te.name, "%s: %s", te.wp[i], msg)
		return
	}
	te.c.shErr(te.name, "%s", msg)
}

// MkshTest is c_test.
func MkshTest(c *Ctx) int {
	te := &testEnv{c: c, name: strings.TrimPrefix(c.Args[0], "__"), wp: c.Args[1:]}
	if te.name == "[" {
		if len(te.wp) == 0 || te.wp[len(te.wp)-1] != "]" {
			c.shErr("[", "missing ]")
			return mkshTestErrExit
		}
		te.wp = te.wp[:len(te.wp)-1]
	}
	out := func(rv bool, invert int) int {
		if te.failed {
			return mkshTestErrExit
		}
		if rv != (invert%2 == 1) {
			return 0
		}
		return 1
	}
	invert := 0
	// POSIX's special cases by operand count, as c_test inlines them.
	n := len(te.wp)
	for {
		switch n {
		case 0:
			if invert%2 == 1 {
				return 0
			}
			return 1
		case 1:
			return out(te.eval("-n", te.wp[te.pos], ""), invert)
		case 2:
			if te.isa("!") {
				invert++
				n = 1
				continue
			}
			if op := te.isOp(mkshUnaryOps); op != "" {
				return out(te.eval(op, te.wp[te.pos], ""), invert)
			}
		case 3:
			start := te.pos
			lhs := te.wp[te.pos]
			te.pos++
			if op := te.isOp(mkshBinaryOps); op != "" {
				return out(te.eval(op, lhs, te.wp[te.pos]), invert)
			}
			if and := te.isa("-a"); and || te.isa("-o") {
				l, r := te.eval("-n", lhs, ""), te.eval("-n", te.wp[te.pos], "")
				if and {
					return out(l && r, invert)
				}
				return out(l || r, invert)
			}
			te.pos = start
			if te.isa("!") {
				invert++
				n = 2
				continue
			}
			if te.isa("(") {
				if te.pos+1 < len(te.wp) && te.wp[te.pos+1] == ")" {
					n = 1
					continue
				}
				te.pos--
			}
		case 4:
			if te.isa("!") {
				invert++
				n = 3
				continue
			}
			if te.isa("(") {
				if te.pos+2 < len(te.wp) && te.wp[te.pos+2] == ")" {
					n = 2
					continue
				}
				te.pos--
			}
		}
		break
	}
	// "The results are unspecified": the full parser, from the start.
	te.pos, te.failed = 0, false
	rv := te.oexpr(true)
	if !te.failed && te.more() {
		te.fail(0, "unexpected operator/operand")
	}
	if te.failed {
		return mkshTestErrExit
	}
	if rv {
		return 0
	}
	return 1
}

func (te *testEnv) oexpr(eval bool) bool {
	rv := te.aexpr(eval)
	if rv {
		eval = false
	}
	if !te.failed && te.isa("-o") {
		return te.oexpr(eval) || rv
	}
	return rv
}

func (te *testEnv) aexpr(eval bool) bool {
	rv := te.nexpr(eval)
	if !rv {
		eval = false
	}
	if !te.failed && te.isa("-a") {
		return te.aexpr(eval) && rv
	}
	return rv
}

func (te *testEnv) nexpr(eval bool) bool {
	if !te.failed && te.isa("!") {
		return !te.nexpr(eval)
	}
	return te.primary(eval)
}

func (te *testEnv) primary(eval bool) bool {
	if te.failed {
		return false
	}
	if te.isa("(") {
		rv := te.oexpr(eval)
		if te.failed {
			return false
		}
		if !te.isa(")") {
			te.fail(0, "missing )")
			return false
		}
		return rv
	}
	// Binary operators win over unary ones: test \( -f = -f \).
	if te.pos+1 < len(te.wp) && !slices.Contains(mkshBinaryOps, te.wp[te.pos+1]) {
		if op := te.isOp(mkshUnaryOps); op != "" {
			if !te.more() {
				te.fail(-1, "missing argument")
				return false
			}
			te.pos++
			return eval && te.eval(op, te.wp[te.pos-1], "")
		}
	}
	if !te.more() {
		te.fail(0, "expression expected")
		return false
	}
	lhs := te.wp[te.pos]
	te.pos++
	if op := te.isOp(mkshBinaryOps); op != "" {
		if !te.more() {
			te.fail(-1, "missing second argument")
			return false
		}
		te.pos++
		return eval && te.eval(op, lhs, te.wp[te.pos-1])
	}
	return eval && te.eval("-n", lhs, "")
}

// eval is test_eval for one operator, on the virtual file system.
func (te *testEnv) eval(op, a, b string) bool {
	fs := te.c.Phone.FS()
	stat := func(p string) (uint32, int64, bool) {
		fi, err := fs.Stat(te.c.Abs(p))
		if err != nil {
			return 0, 0, false
		}
		return vfs.ShownMode(te.c.Abs(p), fi.Mode), fi.Size, true
	}
	mode, size, ok := stat(a)
	typ := mode & 0o170000
	switch op {
	case "-n":
		return a != ""
	case "-z":
		return a == ""
	case "-a", "-e":
		return ok
	case "-f":
		return ok && typ == vfs.ModeFile
	case "-d":
		return ok && typ == vfs.ModeDir
	case "-s":
		return ok && size > 0
	case "-r":
		return ok
	case "-w":
		return ok && writableByShell(te.c.Abs(a))
	case "-x":
		return ok && (typ == vfs.ModeDir || mode&0o111 != 0)
	case "-u":
		return ok && mode&0o4000 != 0
	case "-g":
		return ok && mode&0o2000 != 0
	case "-k":
		return ok && mode&0o1000 != 0
	case "-O", "-G":
		user, _, group, _ := vfs.Owner(te.c.Abs(a))
		return ok && (op == "-O" && user == "shell" || op == "-G" && group == "shell")
	case "-t":
		if _, err := strconv.Atoi(a); err != nil {
			te.failed = true
		}
		return false // adb shell with a command has no terminal
	case "-h", "-L":
		_, link := vfs.LinkAt(te.c.Dir, a)
		return link
	case "-c":
		return ok && typ == vfs.ModeCharDev
	case "-b", "-p", "-S", "-H", "-o", "-v":
		return false // no devices, FIFOs or sockets here; -o/-v: shell state
	case "=", "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case ">":
		return a > b
	case "-nt", "-ot", "-ef":
		fa, errA := fs.Stat(te.c.Abs(a))
		fb, errB := fs.Stat(te.c.Abs(b))
		switch op {
		case "-nt":
			return errA == nil && (errB != nil || fa.ModTime.After(fb.ModTime))
		case "-ot":
			return errB == nil && (errA != nil || fa.ModTime.Before(fb.ModTime))
		}
		return errA == nil && errB == nil && te.c.Abs(a) == te.c.Abs(b)
	}
	// Integer comparisons: mksh evaluates each side as an arithmetic
	// expression; a number or an (unset, so 0) variable name is modelled.
	x, okA := te.integer(a)
	y, okB := te.integer(b)
	if !okA || !okB {
		te.failed = true
		return true
	}
	switch op {
	case "-eq":
		return x == y
	case "-ne":
		return x != y
	case "-gt":
		return x > y
	case "-ge":
		return x >= y
	case "-lt":
		return x < y
	}
	return x <= y // -le
}

// integer reads an integer operand as mksh's evaluate() would for the
// simple cases: a number, or a variable name (unset here, so 0). A
// literal with junk is expr.c evalerr's "S: bad number 'S'", another
// stray character "S: unexpected 'C'".
func (te *testEnv) integer(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, true
	}
	if n, err := strconv.ParseInt(t, 0, 64); err == nil {
		return n, true
	}
	alnum := func(r rune) bool {
		return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	bad := strings.IndexFunc(t, func(r rune) bool { return !alnum(r) })
	switch {
	case bad < 0 && !IsDigit(t[0]):
		return 0, true
	case bad < 0:
		te.c.Errorf("%s: %s: bad number '%s'\n", ShellName, s, t)
	default:
		te.c.Errorf("%s: %s: unexpected '%c'\n", ShellName, s, t[bad])
	}
	return 0, false
}

// writableByShell reports whether the shell user may write p: shared
// storage and /data/local/tmp.
func writableByShell(p string) bool {
	for _, dir := range []string{"/sdcard", "/data/local/tmp"} {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}
