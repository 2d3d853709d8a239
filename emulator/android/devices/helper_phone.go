package devices

import (
	"bytes"
	"context"
	"image"
	"math"
	"strconv"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
	"github.com/adb-connector/adb-connector/emulator/phonefw"
)

// helperPhone is this phone as the helper's fake framework sees it
// (phonefw.Phone): its screen as `uiautomator dump` writes it, input that
// acts as `input` does, accessibility actions on its text fields, a
// clipboard, its frame. Each call costs what the helper's call costs on
// the phone (HelperCost), charged to the app_process command.
type helperPhone struct {
	d       *Devices
	c       *shell.Ctx
	windows int // top-level nodes of the last dump served
}

var _ phonefw.Phone = (*helperPhone)(nil)

func (p *helperPhone) Connect(flags int) error {
	d := p.d
	d.p.Lock()
	defer d.p.Unlock()
	if d.slotHeldLocked() {
		return phonefw.ErrBusy
	}
	d.helper.connected = true
	return nil
}

func (p *helperPhone) Disconnect() {
	p.d.p.Lock()
	p.d.helper.connected = false
	p.d.p.Unlock()
}

// WaitIdle is AOSP UiAutomation.waitForIdle: it returns once idle has
// passed since the last accessibility event (here the last input or
// change), and fails when timeout comes first (at once for a timeout of
// 0). The instant profile never waits.
func (p *helperPhone) WaitIdle(ctx context.Context, idle, timeout time.Duration) bool {
	d := p.d
	if timeout <= 0 {
		return false
	}
	if d.p.Prof.DumpIdle == 0 {
		return true
	}
	d.p.Lock()
	wait := idle - d.p.Now().Sub(d.p.State.LastInput)
	d.p.Unlock()
	if wait <= 0 {
		return true
	}
	if wait > timeout {
		p.c.Charge(timeout)
		return false
	}
	return p.c.Charge(wait)
}

func (p *helperPhone) Display() (w, h, rotation int) {
	d := p.d
	d.p.Lock()
	defer d.p.Unlock()
	s := d.p.DisplaySize()
	return s.X, s.Y, d.p.State.Rotation
}

// Dump serves what `uiautomator dump` would write now (nil: screen off).
func (p *helperPhone) Dump() []byte {
	d := p.d
	d.p.Lock()
	b, ok := d.dumpLocked()
	d.p.Unlock()
	if !ok {
		return nil
	}
	p.windows = topLevelNodes(b)
	nodes := bytes.Count(b, []byte("<node "))
	cost := d.helperCost()
	p.c.Charge(cost.TreeBase + time.Duration(nodes)*cost.TreePerNode)
	return b
}

// topLevelNodes counts the <node> elements directly under <hierarchy>.
func topLevelNodes(b []byte) int {
	n, depth := 0, 0
	for i := 0; i < len(b); i++ {
		switch {
		case bytes.HasPrefix(b[i:], []byte("<node ")):
			if depth == 0 {
				n++
			}
			depth++
		case bytes.HasPrefix(b[i:], []byte("</node>")):
			depth--
		case bytes.HasPrefix(b[i:], []byte("/>")) && depth > 0:
			depth--
		}
	}
	return n
}

// Motion recognises the injected touch as InputReader's consumers would
// (inputdev.go classifyLocked: the 8 dp touch slop, the 500 ms long
// press) and acts when the finger lifts, as `input` does. Two-finger
// gestures (pinch) are logged, not modelled.
func (p *helperPhone) Motion(ctx context.Context, m phonefw.Motion) bool {
	d := p.d
	if !p.c.Charge(d.helperCost().Inject) || len(m.X) == 0 {
		return false
	}
	d.p.Lock()
	g := &d.helper.gesture
	pt := [2]float64{m.X[0], m.Y[0]}
	var done *Touch
	switch m.Action & 0xff {
	case phonefw.MotionDown:
		g.down, g.multi, g.from, g.to, g.start = true, false, pt, pt, m.DownTime
	case phonefw.MotionMove:
		g.to = pt
	case phonefw.MotionPointerDown, phonefw.MotionPointerUp:
		g.multi = true
	case phonefw.MotionUp:
		if g.down {
			g.to = pt
			done = p.classifyLocked(time.Duration(m.Event-g.start) * time.Millisecond)
			g.down = false
		}
	}
	if done != nil && done.Kind != "" {
		d.touchActionLocked(*done)
	}
	d.p.Unlock()
	if done != nil {
		d.log(done, "")
	}
	return true
}

func (p *helperPhone) classifyLocked(held time.Duration) *Touch {
	d, g := p.d, &p.d.helper.gesture
	from := image.Pt(int(math.Round(g.from[0])), int(math.Round(g.from[1])))
	to := image.Pt(int(math.Round(g.to[0])), int(math.Round(g.to[1])))
	t := &Touch{From: from, To: to, Held: held, Node: "helper:injectInputEvent"}
	if !g.multi { // a two-finger gesture: nothing modelled acts on it
		t.classify(max(abs(to.X-from.X), abs(to.Y-from.Y)), 8*max(d.p.Screen.Density, 160)/160)
	}
	return t
}

// Key acts once per press, on the first down, as `input keyevent` does.
func (p *helperPhone) Key(ctx context.Context, k phonefw.Key) bool {
	d := p.d
	if !p.c.Charge(d.helperCost().Inject) {
		return false
	}
	if k.Action != 0 || k.Repeat != 0 {
		return true
	}
	d.p.Lock()
	d.p.KeyLocked(k.Code)
	d.p.Unlock()
	d.log(nil, "key "+strconv.Itoa(k.Code))
	return true
}

// nodeLocked finds the node at path in the tree the last dump showed
// (window, then child indexes): a real dump's several windows are the
// children of ParseDump's synthetic root.
func (p *helperPhone) nodeLocked(path []int) *ui.Element {
	d := p.d
	root := d.p.Tree()
	if root == nil || len(path) == 0 {
		return nil
	}
	if d.p.State.ANR != "" && !d.p.State.Locked {
		root = d.p.MapToDisplay(d.p.ANRDialog())
	}
	n := root
	if p.windows > 1 {
		if path[0] >= len(root.Children) {
			return nil
		}
		n = root.Children[path[0]]
	} else if path[0] != 0 {
		return nil
	}
	for _, i := range path[1:] {
		if i < 0 || i >= len(n.Children) {
			return nil
		}
		n = n.Children[i]
	}
	return n
}

// Action performs an accessibility action on a text field: focus, set
// text (what it then holds), select all, paste the clipboard at the end
// or over the selection. Anything else is refused (false), as a view
// that does not handle the action answers. The text is never logged.
func (p *helperPhone) Action(path []int, action int, arg, arg2 string) bool {
	d := p.d
	if !p.c.Charge(d.helperCost().Action) {
		return false
	}
	d.p.Lock()
	n := p.nodeLocked(path)
	ok := n != nil && n.Field && d.p.State.ScreenOn && !d.p.State.Locked
	name := ""
	if ok {
		switch action {
		case phonefw.ActionFocus:
			name = "focus"
			d.p.State.Focus, d.p.State.SelAll = n.Key, false
		case phonefw.ActionSetText:
			name = "set_text"
			d.p.State.Fields[n.Key], d.p.State.SelAll = arg, false
		case phonefw.ActionSetSelection:
			name = "select"
			end, _ := strconv.Atoi(arg2)
			d.p.State.Focus = n.Key
			d.p.State.SelAll = arg == "0" && end == len([]rune(d.p.State.Fields[n.Key])) && end > 0
		case phonefw.ActionPaste:
			name = "paste"
			if d.p.State.Focus == n.Key && d.p.State.SelAll {
				d.p.State.Fields[n.Key] = ""
			}
			d.p.State.Focus, d.p.State.SelAll = n.Key, false
			d.p.State.Fields[n.Key] += d.helper.clip
		default:
			ok = false
		}
	}
	if ok {
		d.p.State.LastInput = d.p.Now()
		d.p.Changed()
	}
	d.p.Unlock()
	if ok {
		d.log(nil, name)
	}
	return ok
}

func (p *helperPhone) ClipGet() string { return p.d.Clipboard() }

func (p *helperPhone) ClipSet(text string) {
	p.d.p.Lock()
	p.d.helper.clip = text
	p.d.p.Unlock()
}

// Screenshot is the frame screencap shows, as PNG for the framework.
func (p *helperPhone) Screenshot(ctx context.Context) []byte {
	d := p.d
	d.p.Lock()
	if !d.p.State.ScreenOn {
		d.p.Unlock()
		return nil
	}
	png := d.p.ScreenshotPNGLocked()
	d.p.Unlock()
	if !p.c.Charge(d.helperCost().Shot) {
		return nil
	}
	return png
}

// Encode charges Bitmap.compress of a w x h image.
func (p *helperPhone) Encode(ctx context.Context, format string, w, h int) {
	cost := p.d.helperCost()
	per := cost.JPEGPerMP
	if format == "PNG" {
		per = cost.PNGPerMP
	}
	p.c.Charge(time.Duration(float64(per) * float64(w*h) / 1e6))
}
