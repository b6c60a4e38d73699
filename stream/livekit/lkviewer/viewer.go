// Package lkviewer watches a LiveKit room as a spectator does, from Go:
// it joins with a viewer token, receives the referee's VP8 track and its
// state messages, and counts them, decoding the pictures when asked. Tests,
// benchmarks and the soak use it as many spectators at once.
package lkviewer

import (
	"context"
	"fmt"
	"image"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	protoLogger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media/samplebuilder"

	"ligretto/stream/livekit"
	"ligretto/stream/vp8"
)

// Options tune a viewer. The zero value counts frames without decoding.
type Options struct {
	// Decode decodes every frame with libvpx and passes the picture to
	// OnFrame.
	Decode bool
	// OnFrame, if set, gets every whole frame, from one goroutine.
	OnFrame func(Frame)
	// OnState, if set, gets every data message on the state topic.
	OnState func([]byte)
	// StateTopic is the topic of state messages. Default "state".
	StateTopic string
}

// Frame is one whole VP8 frame received.
type Frame struct {
	Received time.Time
	Keyframe bool
	Data     []byte
	Image    image.Image // the picture, when decoding; nil before the first keyframe
}

// Stats counts what a viewer received.
type Stats struct {
	Packets, Frames, Keyframes, Decoded, DecodeErrors, StateMessages uint64
}

// Viewer is one spectator in a room.
type Viewer struct {
	opt   Options
	room  *lksdk.Room
	track chan struct{}
	once  sync.Once
	wg    sync.WaitGroup

	packets, frames, keyframes, decoded, decodeErrs, states atomic.Uint64

	mu        sync.Mutex
	lastState []byte
}

// Join joins the room at url with token and subscribes to every video
// track published there.
func Join(ctx context.Context, url, token string, opt Options) (*Viewer, error) {
	if opt.StateTopic == "" {
		opt.StateTopic = "state"
	}
	v := &Viewer{opt: opt, track: make(chan struct{})}
	cb := lksdk.NewRoomCallback()
	cb.ParticipantCallback.OnTrackSubscribed = func(tr *webrtc.TrackRemote, _ *lksdk.RemoteTrackPublication, _ *lksdk.RemoteParticipant) {
		if tr.Kind() != webrtc.RTPCodecTypeVideo {
			return
		}
		v.once.Do(func() { close(v.track) })
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			v.read(tr)
		}()
	}
	cb.ParticipantCallback.OnDataPacket = func(data lksdk.DataPacket, _ lksdk.DataReceiveParams) {
		u, ok := data.(*lksdk.UserDataPacket)
		if !ok || u.Topic != opt.StateTopic {
			return
		}
		v.states.Add(1)
		b := append([]byte(nil), u.Payload...)
		v.mu.Lock()
		v.lastState = b
		v.mu.Unlock()
		if opt.OnState != nil {
			opt.OnState(b)
		}
	}
	// the SDK's package logger, which NewRoom already reads: set first
	livekit.QuietSDK(slog.New(slog.DiscardHandler))
	v.room = lksdk.NewRoom(cb)
	quiet := protoLogger.LogRLogger(logr.Discard())
	if err := v.room.JoinWithContextAndToken(ctx, url, token, lksdk.WithLogger(quiet)); err != nil {
		return nil, fmt.Errorf("join %s: %w", url, err)
	}
	return v, nil
}

// read assembles the track's RTP packets into frames.
func (v *Viewer) read(tr *webrtc.TrackRemote) {
	var dec *vp8.Decoder
	if v.opt.Decode {
		d, err := vp8.NewDecoder()
		if err == nil {
			dec = d
			defer dec.Close()
		}
	}
	sb := samplebuilder.New(64, &codecs.VP8Packet{}, 90000)
	for {
		pkt, _, err := tr.ReadRTP()
		if err != nil {
			return
		}
		v.packets.Add(1)
		sb.Push(pkt)
		for s := sb.Pop(); s != nil; s = sb.Pop() {
			f := Frame{Received: time.Now(), Keyframe: vp8.IsKeyframe(s.Data), Data: s.Data}
			v.frames.Add(1)
			if f.Keyframe {
				v.keyframes.Add(1)
			}
			if dec != nil {
				img, err := dec.Decode(s.Data)
				if err != nil {
					v.decodeErrs.Add(1)
				} else if img != nil {
					v.decoded.Add(1)
					f.Image = img
				}
			}
			if v.opt.OnFrame != nil {
				v.opt.OnFrame(f)
			}
		}
	}
}

// Track is closed when the video track has arrived.
func (v *Viewer) Track() <-chan struct{} { return v.track }

// Room is the viewer's room, for tests that try what a viewer may not do.
func (v *Viewer) Room() *lksdk.Room { return v.room }

// LastState is the last state message, nil before the first.
func (v *Viewer) LastState() []byte {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lastState
}

// Stats reports what the viewer received so far.
func (v *Viewer) Stats() Stats {
	return Stats{Packets: v.packets.Load(), Frames: v.frames.Load(), Keyframes: v.keyframes.Load(),
		Decoded: v.decoded.Load(), DecodeErrors: v.decodeErrs.Load(), StateMessages: v.states.Load()}
}

// Close leaves the room and waits for the track reader.
func (v *Viewer) Close() {
	v.room.Disconnect()
	v.wg.Wait()
}
