package ask

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, b *Board, ch, key, expect string) *Pending {
	t.Helper()
	p, err := b.Open(Question{ChannelID: ch, DeviceKey: key, Message: "solve the CAPTCHA", Expect: expect, AskedAt: time.Unix(int64(len(b.open)), 0)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ended(t *testing.T, p *Pending) Answer {
	t.Helper()
	select {
	case <-p.Done():
		return p.Answer()
	default:
		t.Fatalf("question %s still open", p.Question().ID)
		return Answer{}
	}
}

func TestBoardAnswers(t *testing.T) {
	t.Parallel()
	b := NewBoard()
	either := open(t, b, "c1", "k1", ExpectAny)
	done := open(t, b, "c2", "k2", ExpectDone)
	text := open(t, b, "c3", "k3", ExpectText)
	if _, err := b.Open(Question{ChannelID: "c1"}); !errors.Is(err, ErrOpen) {
		t.Fatalf("second question on c1: %v, want ErrOpen", err)
	}
	if ids := b.List(); len(ids) != 3 || ids[0].ID != either.Question().ID {
		t.Fatalf("List = %+v", ids)
	}
	for _, tc := range []struct {
		id, reply string
		want      error
	}{
		{"q99", "", ErrUnknown},
		{done.Question().ID, "x", ErrNoTextExpected},
		{text.Question().ID, "", ErrTextNeeded},
		{text.Question().ID, strings.Repeat("語", MaxReplyChars+1), ErrReplyTooLong},
	} {
		if _, err := b.Answer(tc.id, tc.reply); !errors.Is(err, tc.want) {
			t.Errorf("Answer(%s, %.10q) = %v, want %v", tc.id, tc.reply, err, tc.want)
		}
	}
	if len(b.List()) != 3 {
		t.Fatal("a refused answer ended a question")
	}
	if q, err := b.Answer(text.Question().ID, "482913"); err != nil || q.DeviceKey != "k3" {
		t.Fatalf("answer text: %+v %v", q, err)
	}
	if a := ended(t, text); !a.Answered || !a.HasReply || a.Reply != "482913" {
		t.Errorf("text answer %+v", a)
	}
	if _, err := b.Answer(done.Question().ID, ""); err != nil {
		t.Fatal(err)
	}
	if a := ended(t, done); !a.Answered || a.HasReply {
		t.Errorf("done answer %+v", a)
	}
	if _, err := b.Decline(either.Question().ID); err != nil {
		t.Fatal(err)
	}
	if a := ended(t, either); a.Answered {
		t.Errorf("declined %+v", a)
	}
	// Ended questions are unknown: a second answer or decline is refused.
	if _, err := b.Decline(either.Question().ID); !errors.Is(err, ErrUnknown) {
		t.Errorf("decline twice: %v", err)
	}
	if _, err := b.Answer(done.Question().ID, ""); !errors.Is(err, ErrUnknown) {
		t.Errorf("answer twice: %v", err)
	}
}

// TestBoardClose: a binding change closes a channel's question unless the
// channel still holds the phone it was about; Withdraw is idempotent and
// lets the channel ask again.
func TestBoardClose(t *testing.T) {
	t.Parallel()
	b := NewBoard()
	p := open(t, b, "c1", "k1", ExpectAny)
	b.Close("c1", "k1")
	b.Close("c2", "")
	if len(b.List()) != 1 {
		t.Fatal("closed while the channel still holds the phone")
	}
	b.Close("c1", "k2")
	if a := ended(t, p); a.Answered {
		t.Errorf("closed %+v", a)
	}
	p = open(t, b, "c1", "k1", ExpectAny)
	b.Close("c1", "")
	ended(t, p)
	p = open(t, b, "c1", "k1", ExpectAny)
	p.Withdraw()
	p.Withdraw()
	ended(t, p)
	if _, err := b.Answer(p.Question().ID, ""); !errors.Is(err, ErrUnknown) {
		t.Errorf("answer after withdraw: %v", err)
	}
	open(t, b, "c1", "k1", ExpectAny)
}

// TestBoardRace: answers, declines, closes and withdrawals of the same
// questions at once end each exactly once.
func TestBoardRace(t *testing.T) {
	t.Parallel()
	b := NewBoard()
	for range 50 {
		p := open(t, b, "c", "k", ExpectAny)
		id := p.Question().ID
		var wg sync.WaitGroup
		wg.Go(func() { b.Answer(id, "x") })
		wg.Go(func() { b.Decline(id) })
		wg.Go(func() { b.Close("c", "") })
		wg.Go(p.Withdraw)
		wg.Wait()
		ended(t, p)
	}
}
