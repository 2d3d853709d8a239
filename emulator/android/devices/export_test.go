package devices

import "context"

// The touchscreen's event codes (Linux include/uapi/linux/input-event-
// codes.h), for the tests' own encoder.
const (
	EvSyn      = evSyn
	EvKey      = evKey
	EvAbs      = evAbs
	SynReport  = synReport
	SynDropped = synDropped
	BtnTouch   = btnTouch
	AbsMTSlot  = absMTSlot
	AbsMTPosX  = absMTPosX
	AbsMTPosY  = absMTPosY
	AbsMTTrack = absMTTrack
	AbsMTPress = absMTPress
	PanelSlots = panelSlots
)

// HelperCosts are the resident helper's costs by timing profile.
var HelperCosts = helperCosts

// EvdevWriter is an open write handle of the panel's node.
type EvdevWriter = evdevWriter

// NewEvdevWriter opens the panel's node of d for writing, with events
// laid out for a 64-bit ABI or not.
func NewEvdevWriter(d *Devices, abi64 bool) *EvdevWriter {
	return &evdevWriter{ctx: context.Background(), d: d, abi64: abi64}
}

// Pending is how many bytes of a partial event the writer holds.
func (w *evdevWriter) Pending() int { return len(w.buf) }

// PanelSlot is the panel's current protocol B slot.
func (d *Devices) PanelSlot() int {
	d.p.Lock()
	defer d.p.Unlock()
	return d.panel.slot
}
