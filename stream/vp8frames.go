package stream

import (
	"time"

	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
)

// maxPendingPackets bounds what the assembler holds while it waits for a
// missing packet: more than a 720p keyframe's packets.
const maxPendingPackets = 2048

// vp8Assembler puts a camera's RTP packets back into VP8 frames. A frame is
// released as soon as its last packet (the marker) is in and none before
// it is missing, not when the next frame's first packet arrives (pion's
// samplebuilder waits for that, which costs a whole frame interval of
// delay). A packet missing for longer than the reorder delay is given up:
// the frames it belonged to are dropped and reported lost.
type vp8Assembler struct {
	pending  map[uint16]*rtp.Packet
	next     uint16 // the first packet of the frame being put together
	started  bool
	gapSince time.Time // when a missing packet first held a frame back
	delay    time.Duration
	vp8      codecs.VP8Packet
}

func newVP8Assembler(delay time.Duration) *vp8Assembler {
	return &vp8Assembler{pending: map[uint16]*rtp.Packet{}, delay: delay}
}

// push takes one packet, at now, and returns the frames it completed, in
// order, and whether packets were lost before any of them.
func (a *vp8Assembler) push(p *rtp.Packet, now time.Time) (frames [][]byte, lost bool) {
	if !a.started {
		a.next, a.started = p.SequenceNumber, true
	}
	if int16(p.SequenceNumber-a.next) < 0 {
		return nil, false // late or a duplicate: its frame is gone already
	}
	a.pending[p.SequenceNumber] = p
	return a.release(now)
}

// expire gives up a missing packet that is overdue at now, without a new
// packet (nothing came for a while).
func (a *vp8Assembler) expire(now time.Time) (frames [][]byte, lost bool) {
	if !a.started {
		return nil, false
	}
	return a.release(now)
}

func (a *vp8Assembler) release(now time.Time) (frames [][]byte, lost bool) {
	for {
		frame, complete, gap := a.frameAt(a.next)
		switch {
		case complete:
			a.gapSince = time.Time{}
			if frame == nil {
				lost = true // a frame whose start was lost
			} else {
				frames = append(frames, frame)
			}
			continue
		case !gap:
			return frames, lost // the frame is still coming, in order
		}
		if a.gapSince.IsZero() {
			a.gapSince = now
		}
		if now.Sub(a.gapSince) < a.delay && len(a.pending) < maxPendingPackets {
			return frames, lost
		}
		// Give up the missing packet: go on from the next frame's start.
		if !a.skipToNextFrame() {
			return frames, lost
		}
		lost = true
		a.gapSince = time.Time{}
	}
}

// frameAt looks at the packets from seq on. complete: a frame ends there
// (the returned frame is nil when it cannot be used, its packets are
// dropped and next moves past them). gap: a packet is missing before the
// frame's end while later packets are in.
func (a *vp8Assembler) frameAt(seq uint16) (frame []byte, complete, gap bool) {
	first, ok := a.pending[seq]
	if !ok {
		return nil, false, len(a.pending) > 0
	}
	end := seq
	for {
		p, ok := a.pending[end]
		if !ok {
			return nil, false, true
		}
		if p.Timestamp != first.Timestamp {
			// The frame's marker was lost: drop what we have of it.
			a.drop(seq, end)
			return nil, true, false
		}
		if p.Marker {
			break
		}
		end++
	}
	defer a.drop(seq, end+1)
	if !a.vp8.IsPartitionHead(first.Payload) {
		return nil, true, false
	}
	for s := seq; s != end+1; s++ {
		b, err := a.vp8.Unmarshal(a.pending[s].Payload)
		if err != nil {
			return nil, true, false
		}
		frame = append(frame, b...)
	}
	return frame, true, false
}

// drop forgets the packets from..to-1, and moves next to to.
func (a *vp8Assembler) drop(from, to uint16) {
	for s := from; s != to; s++ {
		delete(a.pending, s)
	}
	a.next = to
}

// skipToNextFrame moves next to the nearest pending packet that begins a
// frame, dropping everything before it; false when none is in yet.
func (a *vp8Assembler) skipToNextFrame() bool {
	best, found := uint16(0), false
	for s, p := range a.pending {
		if d := int16(s - a.next); d > 0 && a.vp8.IsPartitionHead(p.Payload) && (!found || int16(s-best) < 0) {
			best, found = s, true
		}
	}
	if !found {
		return false
	}
	a.drop(a.next, best)
	return true
}
