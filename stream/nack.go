package stream

import (
	"bytes"
	"sync"

	"github.com/pion/interceptor"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
)

// Loss recovery. A viewer that misses an RTP packet sends a generic NACK,
// and the server sends the packet again from a history of what it sent.
// pion's own NACK responder keeps one history per viewer and copies every
// packet into it: with one shared track every viewer is sent the same
// packets (the same sequence numbers, timestamps and payloads; only the
// SSRC and payload type differ), so that is one copy per packet per viewer
// and about 1.5 MB of history per viewer for nothing. sharedNACK keeps one
// history for all viewers instead: a packet is copied once, by the first
// viewer it is written to, and the other viewers' writes only check that
// it is there.

// nackFeedback is the RTCP feedback that announces NACK-based loss
// recovery in the SDP (RFC 4585 "nack" with no parameter).
var nackFeedback = interceptor.RTCPFeedback{Type: "nack"}

func supportsNACK(info *interceptor.StreamInfo) bool {
	for _, fb := range info.RTCPFeedback {
		if fb.Type == nackFeedback.Type && fb.Parameter == "" {
			return true
		}
	}
	return false
}

// nackHistory is the packets last sent, by sequence number, in a ring.
type nackHistory struct {
	mu     sync.RWMutex
	slots  []histPacket
	mask   uint16
	newest uint16
	any    bool
}

type histPacket struct {
	ok      bool
	header  rtp.Header
	payload []byte
}

// newNACKHistory keeps the last size packets; size is rounded up to a
// power of two between 16 and 32768.
func newNACKHistory(size int) *nackHistory {
	n := 16
	for n < size && n < 1<<15 {
		n <<= 1
	}
	return &nackHistory{slots: make([]histPacket, n), mask: uint16(n - 1)}
}

// same reports whether slot holds this very packet.
func (s *histPacket) same(h *rtp.Header, payload []byte) bool {
	return s.ok && s.header.SequenceNumber == h.SequenceNumber && s.header.Timestamp == h.Timestamp &&
		bytes.Equal(s.payload, payload)
}

// add records a packet that is being sent, unless it is recorded already.
func (hs *nackHistory) add(h *rtp.Header, payload []byte) {
	i := h.SequenceNumber & hs.mask
	hs.mu.RLock()
	have := hs.slots[i].same(h, payload)
	hs.mu.RUnlock()
	if have {
		return
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	s := &hs.slots[i]
	if s.same(h, payload) {
		return
	}
	s.ok = true
	s.header = h.Clone()
	s.payload = append(s.payload[:0], payload...)
	if !hs.any || int16(h.SequenceNumber-hs.newest) > 0 {
		hs.newest, hs.any = h.SequenceNumber, true
	}
}

// get returns copies of the header and the payload of packet seq, if it
// is still in the history (NACKs are rare: copying here is cheap).
func (hs *nackHistory) get(seq uint16) (rtp.Header, []byte, bool) {
	hs.mu.RLock()
	defer hs.mu.RUnlock()
	if !hs.any || hs.newest-seq > hs.mask {
		return rtp.Header{}, nil, false // older than the history, or not sent yet
	}
	s := &hs.slots[seq&hs.mask]
	if !s.ok || s.header.SequenceNumber != seq {
		return rtp.Header{}, nil, false
	}
	return s.header.Clone(), bytes.Clone(s.payload), true
}

// sharedNACKFactory makes a NACK responder per peer connection, all of
// them answering from one history.
type sharedNACKFactory struct {
	hist *nackHistory
	// resent counts packets sent again; nil means not counted.
	resent func()
}

func (f *sharedNACKFactory) NewInterceptor(string) (interceptor.Interceptor, error) {
	return &sharedNACK{hist: f.hist, resent: f.resent, streams: map[uint32]*nackStream{}}, nil
}

type sharedNACK struct {
	interceptor.NoOp
	hist   *nackHistory
	resent func()

	mu      sync.Mutex
	streams map[uint32]*nackStream
}

type nackStream struct {
	ssrc        uint32
	payloadType uint8
	writer      interceptor.RTPWriter
}

func (n *sharedNACK) BindLocalStream(info *interceptor.StreamInfo, writer interceptor.RTPWriter) interceptor.RTPWriter {
	if !supportsNACK(info) {
		return writer
	}
	n.mu.Lock()
	n.streams[info.SSRC] = &nackStream{ssrc: info.SSRC, payloadType: info.PayloadType, writer: writer}
	n.mu.Unlock()
	return interceptor.RTPWriterFunc(func(h *rtp.Header, payload []byte, a interceptor.Attributes) (int, error) {
		if h.SSRC == info.SSRC {
			n.hist.add(h, payload)
		}
		return writer.Write(h, payload, a)
	})
}

func (n *sharedNACK) UnbindLocalStream(info *interceptor.StreamInfo) {
	n.mu.Lock()
	delete(n.streams, info.SSRC)
	n.mu.Unlock()
}

func (n *sharedNACK) BindRTCPReader(reader interceptor.RTCPReader) interceptor.RTCPReader {
	return interceptor.RTCPReaderFunc(func(b []byte, a interceptor.Attributes) (int, interceptor.Attributes, error) {
		i, attr, err := reader.Read(b, a)
		if err != nil {
			return 0, nil, err
		}
		if attr == nil {
			attr = interceptor.Attributes{}
		}
		pkts, err := attr.GetRTCPPackets(b[:i])
		if err != nil {
			return 0, nil, err
		}
		for _, p := range pkts {
			if nack, ok := p.(*rtcp.TransportLayerNack); ok {
				go n.resend(nack)
			}
		}
		return i, attr, nil
	})
}

func (n *sharedNACK) Close() error {
	n.mu.Lock()
	clear(n.streams)
	n.mu.Unlock()
	return nil
}

// resend sends the packets a NACK names again, with this viewer's SSRC and
// payload type; packets no longer in the history are skipped (the viewer
// then asks for a keyframe).
func (n *sharedNACK) resend(nack *rtcp.TransportLayerNack) {
	n.mu.Lock()
	st := n.streams[nack.MediaSSRC]
	n.mu.Unlock()
	if st == nil {
		return
	}
	for _, pair := range nack.Nacks {
		pair.Range(func(seq uint16) bool {
			h, payload, ok := n.hist.get(seq)
			if !ok {
				return true
			}
			h.SSRC, h.PayloadType = st.ssrc, st.payloadType
			if _, err := st.writer.Write(&h, payload, interceptor.Attributes{}); err == nil && n.resent != nil {
				n.resent()
			}
			return true
		})
	}
}
