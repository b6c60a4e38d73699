package stream

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// TestNACKHistory: packets are kept by sequence number for the size of
// the history, across the 16-bit wrap; a packet written for several
// viewers is stored once and keeps its first header; nothing newer than
// what was sent, nor older than the history, is returned.
func TestNACKHistory(t *testing.T) {
	h := newNACKHistory(20) // rounded up to 32
	if len(h.slots) != 32 {
		t.Fatalf("%d slots, want 32", len(h.slots))
	}
	if _, _, ok := h.get(0); ok {
		t.Fatal("a packet from an empty history")
	}
	payload := func(seq uint16) []byte { return []byte{byte(seq >> 8), byte(seq), 0xAB} }
	start := uint16(65520) // wraps after 16 packets
	for i := 0; i < 40; i++ {
		seq := start + uint16(i)
		p := payload(seq)
		for ssrc := uint32(1); ssrc <= 3; ssrc++ { // three viewers, one packet
			h.add(&rtp.Header{SequenceNumber: seq, Timestamp: uint32(i / 2), SSRC: ssrc, PayloadType: 96}, p)
		}
		p[2] = 0 // the caller's buffer may change afterwards
	}
	newest := start + 39
	for back := uint16(0); back < 32; back++ {
		seq := newest - back
		hd, p, ok := h.get(seq)
		if !ok {
			t.Fatalf("seq %d (%d back) is missing", seq, back)
		}
		if hd.SequenceNumber != seq || hd.SSRC != 1 || !bytes.Equal(p, payload(seq)) {
			t.Fatalf("seq %d: header %+v payload %v", seq, hd, p)
		}
	}
	if _, _, ok := h.get(newest - 32); ok {
		t.Fatal("a packet older than the history")
	}
	if _, _, ok := h.get(newest + 1); ok {
		t.Fatal("a packet not sent yet")
	}
	// Another packet under a sequence number that is kept replaces it.
	h.add(&rtp.Header{SequenceNumber: newest, Timestamp: 99}, []byte{1})
	if _, p, _ := h.get(newest); !bytes.Equal(p, []byte{1}) {
		t.Fatalf("replaced packet: %v", p)
	}
}

// TestNACK_LostPacketIsSentAgain: a viewer that reports a packet lost gets
// it again, byte for byte, from the history shared with other viewers, and
// only that viewer does. Nothing is lost on loopback, so the viewer NACKs a
// packet it has, and its SRTP replay protection (which would rightly drop
// the copy) is off.
func TestNACK_LostPacketIsSentAgain(t *testing.T) {
	ts := startServer(t, testConfig(), nil)
	api := browserLikeViewer(func(se *webrtc.SettingEngine) { se.DisableSRTPReplayProtection(true) })
	type seen struct {
		mu    sync.Mutex
		ssrc  uint32
		pkts  map[uint16][][]byte // payloads by sequence number
		order []uint16
	}
	watch := func() (*seen, viewerOptions) {
		s := &seen{pkts: map[uint16][][]byte{}}
		return s, viewerOptions{noDC: true, onRTP: func(p *rtp.Packet) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.ssrc = p.SSRC
			if s.pkts[p.SequenceNumber] == nil {
				s.order = append(s.order, p.SequenceNumber)
			}
			s.pkts[p.SequenceNumber] = append(s.pkts[p.SequenceNumber], bytes.Clone(p.Payload))
		}}
	}
	a, optA := watch()
	b, optB := watch()
	va, err := dialViewer(ts.URL, api, optA)
	if err != nil {
		t.Fatal(err)
	}
	defer va.close()
	vb, err := dialViewer(ts.URL, api, optB)
	if err != nil {
		t.Fatal(err)
	}
	defer vb.close()
	count := func(s *seen) int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.order)
	}
	waitFor(t, 15*time.Second, "packets for both viewers", func() bool { return count(a) >= 30 && count(b) >= 30 })

	// A packet both viewers got a while ago.
	a.mu.Lock()
	var lost uint16
	var orig []byte
	found := false
	for _, seq := range a.order[len(a.order)-20:] {
		b.mu.Lock()
		pb := b.pkts[seq]
		b.mu.Unlock()
		if len(pb) == 1 && len(a.pkts[seq]) == 1 {
			lost, orig, found = seq, a.pkts[seq][0], true
			if !bytes.Equal(pb[0], orig) {
				t.Fatalf("seq %d: the viewers were sent different payloads", seq)
			}
			break
		}
	}
	ssrc := a.ssrc
	a.mu.Unlock()
	if !found {
		t.Fatal("no packet that both viewers got once")
	}
	resent0 := ts.met.resent.Load()
	if err := va.PeerConnection().WriteRTCP([]rtcp.Packet{&rtcp.TransportLayerNack{MediaSSRC: ssrc,
		Nacks: rtcp.NackPairsFromSequenceNumbers([]uint16{lost})}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the packet again", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.pkts[lost]) >= 2
	})
	a.mu.Lock()
	again := a.pkts[lost][1]
	a.mu.Unlock()
	if !bytes.Equal(again, orig) {
		t.Fatalf("seq %d sent again as %d bytes, not the %d sent first", lost, len(again), len(orig))
	}
	if got := ts.met.resent.Load() - resent0; got != 1 {
		t.Fatalf("%d packets counted as resent, want 1", got)
	}
	time.Sleep(200 * time.Millisecond)
	b.mu.Lock()
	nb := len(b.pkts[lost])
	b.mu.Unlock()
	if nb != 1 {
		t.Fatalf("the other viewer got seq %d %d times", lost, nb)
	}
}

// TestNACK_OfferedOnlyWhenAnswered: the answer announces generic NACK by
// default, and not when the history is turned off.
func TestNACK_OfferedOnlyWhenAnswered(t *testing.T) {
	offer := func() string {
		pc, _, o, err := newOfferPC(browserLikeViewerAPI(), true)
		if err != nil {
			t.Fatal(err)
		}
		pc.Close()
		return o
	}
	const line = "a=rtcp-fb:96 nack\r\n"
	for _, c := range []struct {
		history int
		want    bool
	}{{0, true}, {-1, false}} {
		cfg := testConfig()
		cfg.NACKHistory = c.history
		s := newIdleServer(t, cfg)
		code, _, body, _ := postOffer(t, s, offer())
		if code != 201 {
			t.Fatalf("POST: %d %s", code, body)
		}
		if got := strings.Contains(body, line); got != c.want {
			t.Fatalf("NACKHistory %d: generic NACK in the answer %v, want %v:\n%s", c.history, got, c.want, body)
		}
		if !strings.Contains(body, "a=rtcp-fb:96 nack pli\r\n") {
			t.Fatalf("NACKHistory %d: no PLI in the answer:\n%s", c.history, body)
		}
	}
}
