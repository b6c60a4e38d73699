package stream

import (
	"bytes"
	"testing"
	"time"

	"github.com/pion/rtp"
)

// vp8Packets splits a frame's payload into n RTP packets from seq on, as
// a VP8 payloader does: a one-byte descriptor, S set on the first, the
// marker on the last.
func vp8Packets(seq uint16, ts uint32, data []byte, n int) []*rtp.Packet {
	var out []*rtp.Packet
	size := (len(data) + n - 1) / n
	for i := 0; i < n; i++ {
		chunk := data[i*size : min((i+1)*size, len(data))]
		desc := byte(0x00)
		if i == 0 {
			desc = 0x10
		}
		out = append(out, &rtp.Packet{Header: rtp.Header{SequenceNumber: seq + uint16(i), Timestamp: ts, Marker: i == n-1},
			Payload: append([]byte{desc}, chunk...)})
	}
	return out
}

// TestVP8Assembler_ReleasesAFrameAtItsLastPacket: a frame comes out with
// its marker packet, not with the next frame's first; packets out of
// order within a frame wait for each other; a duplicate or late packet is
// ignored; sequence numbers wrap; a packet missing past the reorder delay
// is given up, reported lost, and the next whole frame still comes out.
func TestVP8Assembler_ReleasesAFrameAtItsLastPacket(t *testing.T) {
	now := time.Unix(1000, 0)
	a := newVP8Assembler(250 * time.Millisecond)
	f1 := bytes.Repeat([]byte{1}, 3000)
	p1 := vp8Packets(65533, 9000, f1, 4) // wraps past 65535
	for i, p := range p1 {
		frames, lost := a.push(p, now)
		if lost || (i < 3) != (len(frames) == 0) {
			t.Fatalf("packet %d: %d frames, lost %v", i, len(frames), lost)
		}
		if i == 3 && !bytes.Equal(frames[0], f1) {
			t.Fatalf("frame 1: %d bytes, want the %d sent", len(frames[0]), len(f1))
		}
	}
	if frames, lost := a.push(p1[2], now); len(frames) != 0 || lost {
		t.Fatal("a duplicate of a released frame's packet came out again")
	}

	// Out of order within the frame.
	f2 := bytes.Repeat([]byte{2}, 2000)
	p2 := vp8Packets(p1[3].SequenceNumber+1, 12000, f2, 3)
	for _, i := range []int{2, 0} {
		if frames, _ := a.push(p2[i], now); len(frames) != 0 {
			t.Fatalf("frame 2 came out with packet %d missing", 1)
		}
	}
	if frames, lost := a.push(p2[1], now); len(frames) != 1 || lost || !bytes.Equal(frames[0], f2) {
		t.Fatalf("frame 2: %d frames, lost %v", len(frames), lost)
	}

	// Frame 3 loses a packet for good; frame 4 comes whole behind it.
	f3, f4 := bytes.Repeat([]byte{3}, 2000), bytes.Repeat([]byte{4}, 2000)
	p3 := vp8Packets(p2[2].SequenceNumber+1, 15000, f3, 3)
	p4 := vp8Packets(p3[2].SequenceNumber+1, 18000, f4, 2)
	for _, p := range []*rtp.Packet{p3[0], p3[2], p4[0], p4[1]} {
		if frames, lost := a.push(p, now.Add(10*time.Millisecond)); len(frames) != 0 || lost {
			t.Fatal("a frame came out before the missing packet was given up")
		}
	}
	frames, lost := a.expire(now.Add(100 * time.Millisecond))
	if len(frames) != 0 || lost {
		t.Fatal("given up before the reorder delay")
	}
	frames, lost = a.expire(now.Add(400 * time.Millisecond))
	if !lost || len(frames) != 1 || !bytes.Equal(frames[0], f4) {
		t.Fatalf("after the delay: %d frames, lost %v", len(frames), lost)
	}
	if frames, _ := a.push(p3[1], now.Add(time.Second)); len(frames) != 0 {
		t.Fatal("the packet that came too late made a frame")
	}

	// A frame whose marker packet was lost ends where the next begins.
	f5, f6 := bytes.Repeat([]byte{5}, 2000), bytes.Repeat([]byte{6}, 1000)
	p5 := vp8Packets(p4[1].SequenceNumber+1, 21000, f5, 2)
	p6 := vp8Packets(p5[1].SequenceNumber, 24000, f6, 1)
	// Frame 5's last packet was lost, and frame 6 (one packet) took its
	// sequence number's place.
	p5[1] = &rtp.Packet{Header: rtp.Header{SequenceNumber: p5[1].SequenceNumber, Timestamp: 24000, Marker: true}, Payload: p6[0].Payload}
	a.push(p5[0], now.Add(2*time.Second))
	frames, lost = a.push(p5[1], now.Add(2*time.Second))
	if !lost || len(frames) != 1 || !bytes.Equal(frames[0], f6) {
		t.Fatalf("a frame cut short: %d frames, lost %v", len(frames), lost)
	}
	if len(a.pending) != 0 {
		t.Errorf("%d packets still held", len(a.pending))
	}
}
