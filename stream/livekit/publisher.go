package livekit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// StateTopic is the data messages' topic: the game state, the same JSON
// that the local viewers get on their DataChannel.
const StateTopic = "state"

// TrackName is the name of the published video track.
const TrackName = "table"

// The publisher's states, as Status reports them.
const (
	StateConnecting   = "connecting"
	StateLive         = "live"
	StateReconnecting = "reconnecting"
	StateStopped      = "stopped"
)

// stateRepeat is how often the state goes to the room again when it did
// not change: LiveKit keeps no data messages, so a viewer who joins after
// the last change waits for this at most to see the game.
const stateRepeat = 3 * time.Second

// stuckAfter ends a session whose own recovery (LiveKit's SDK resumes and
// restarts by itself) has not brought it back by then, and joins afresh.
const stuckAfter = 3 * time.Second

var errDisconnected = errors.New("disconnected from the LiveKit server")

// Status is what the publisher is doing now.
type Status struct {
	State     string    `json:"state"`
	Room      string    `json:"room"`
	Since     time.Time `json:"since"`
	Joins     int       `json:"joins"` // successful joins, the first included
	LastError string    `json:"last_error,omitempty"`
}

// Publisher publishes the referee's encoded video and its game state to a
// LiveKit room, and joins again by itself when the server or the network
// goes away. It is a stream.Relay: the stream server hands it each encoded
// frame and each state message, and it never makes the server wait.
type Publisher struct {
	cfg      Config
	keyframe func()
	log      *slog.Logger

	video chan media.Sample
	kick  chan struct{} // the state changed
	mu    sync.Mutex
	state []byte
	st    Status

	live    atomic.Bool
	sent    atomic.Uint64
	dropped atomic.Uint64
	joins   atomic.Uint64
}

// New makes a publisher for cfg. keyframe asks the encoder for a keyframe
// (stream.Server.RequestKeyframe): when the publisher joins, when frames
// were dropped, and when LiveKit asks for one for its viewers.
func New(cfg Config, keyframe func()) (*Publisher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	QuietSDK(cfg.Logger)
	if keyframe == nil {
		keyframe = func() {}
	}
	p := &Publisher{cfg: cfg, keyframe: keyframe, log: cfg.Logger.With(slog.String("livekit_room", cfg.Room)),
		video: make(chan media.Sample, 8), kick: make(chan struct{}, 1)}
	p.st = Status{State: StateConnecting, Room: cfg.Room, Since: time.Now()}
	if cfg.Registry != nil {
		if err := p.register(cfg.Registry); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Live reports whether the publisher sends video now.
func (p *Publisher) Live() bool { return p.live.Load() }

// WriteVideo queues one encoded frame; when the queue is full the frame is
// dropped and a keyframe asked for, since the next frames would not decode.
func (p *Publisher) WriteVideo(s media.Sample) {
	s.Data = append([]byte(nil), s.Data...) // the encoder may reuse its buffer
	select {
	case p.video <- s:
	default:
		p.dropped.Add(1)
		p.keyframe()
	}
}

// WriteState keeps the newest state message, sent when the loop gets to it.
func (p *Publisher) WriteState(b []byte) {
	p.mu.Lock()
	p.state = append(p.state[:0:0], b...)
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// Status reports the publisher's state.
func (p *Publisher) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.st
	st.Joins = int(p.joins.Load())
	return st
}

func (p *Publisher) setState(state string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.st.State != state {
		p.st.State, p.st.Since = state, time.Now()
	}
	if err != nil {
		p.st.LastError = err.Error()
	}
}

// Run joins the room and publishes until ctx ends, joining again after
// every loss, with waits from 250 ms up to RetryMax.
func (p *Publisher) Run(ctx context.Context) error {
	defer func() {
		p.live.Store(false)
		p.setState(StateStopped, nil)
	}()
	wait := 250 * time.Millisecond
	var away time.Time // when publishing stopped; zero while it goes on
	for ctx.Err() == nil {
		start := time.Now()
		err := p.session(ctx, func() {
			if !away.IsZero() {
				p.log.Info("LiveKit: publishing again", slog.Duration("away", time.Since(away).Round(time.Millisecond)))
				away = time.Time{}
			}
		})
		p.live.Store(false)
		if ctx.Err() != nil {
			return nil
		}
		if time.Since(start) > 10*time.Second {
			wait = 250 * time.Millisecond
		}
		p.setState(StateReconnecting, err)
		// Said once an outage; the retries are debug.
		level := slog.LevelDebug
		if away.IsZero() {
			away, level = time.Now(), slog.LevelWarn
		}
		p.log.Log(ctx, level, "LiveKit: not publishing; joining again", slog.Any("err", err), slog.Duration("in", wait))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, p.cfg.RetryMax)
	}
	return nil
}

// session joins the room once, publishes until the connection is lost or
// ctx ends, and leaves.
func (p *Publisher) session(ctx context.Context, joined func()) error {
	done := make(chan struct{})
	var once sync.Once
	var reconnecting atomic.Int64 // unix nanos since the SDK began to recover; 0 if not
	room := lksdk.NewRoom(&lksdk.RoomCallback{
		OnDisconnected: func() { once.Do(func() { close(done) }) },
		OnReconnecting: func() {
			p.live.Store(false)
			reconnecting.Store(time.Now().UnixNano())
			p.setState(StateReconnecting, nil)
		},
		OnReconnected: func() {
			reconnecting.Store(0)
			p.live.Store(true)
			p.setState(StateLive, nil)
			p.keyframe()
			p.WriteState(p.currentState())
			p.log.Info("LiveKit: publishing again after a resume")
		},
	})
	token, err := publisherToken(p.cfg, 24*time.Hour)
	if err != nil {
		return err
	}
	joinCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = room.JoinWithContextAndToken(joinCtx, p.cfg.URL, token, lksdk.WithAutoSubscribe(false),
		lksdk.WithLogger(sdkLogger(p.log)))
	cancel()
	if err != nil {
		return fmt.Errorf("join %s: %w", p.cfg.URL, err)
	}
	defer room.Disconnect()

	track, err := lksdk.NewLocalTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000},
		lksdk.WithRTCPHandler(func(pkt rtcp.Packet) {
			switch pkt.(type) {
			case *rtcp.PictureLossIndication, *rtcp.FullIntraRequest:
				p.keyframe()
			}
		}))
	if err != nil {
		return fmt.Errorf("video track: %w", err)
	}
	if _, err := room.LocalParticipant.PublishTrack(track, &lksdk.TrackPublicationOptions{Name: TrackName, Source: livekit.TrackSource_CAMERA}); err != nil {
		return fmt.Errorf("publish the video: %w", err)
	}
	p.joins.Add(1)
	p.live.Store(true)
	p.setState(StateLive, nil)
	p.keyframe()
	if p.joins.Load() == 1 {
		p.log.Info("LiveKit: publishing", slog.String("url", p.cfg.URL), slog.String("identity", p.cfg.Identity))
	}
	joined()
	var stateSent time.Time
	sendState := func() {
		p.sendState(room)
		stateSent = time.Now()
	}
	sendState()

	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-done:
			return errDisconnected
		case s := <-p.video:
			if !p.live.Load() {
				continue
			}
			if err := track.WriteSample(s, nil); err != nil {
				p.dropped.Add(1)
				continue
			}
			p.sent.Add(1)
		case <-p.kick:
			if p.live.Load() {
				sendState()
			}
		case <-tick.C:
			if t := reconnecting.Load(); t != 0 && time.Since(time.Unix(0, t)) > stuckAfter {
				return fmt.Errorf("%w: not back after %v", errDisconnected, stuckAfter)
			}
			if p.live.Load() && time.Since(stateSent) >= stateRepeat {
				sendState()
			}
		}
	}
}

func (p *Publisher) currentState() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// sendState sends the newest state to the room, reliably: a viewer must
// not miss a call.
func (p *Publisher) sendState(room *lksdk.Room) {
	b := p.currentState()
	if len(b) == 0 {
		return
	}
	if err := room.LocalParticipant.PublishDataPacket(lksdk.UserData(b),
		lksdk.WithDataPublishReliable(true), lksdk.WithDataPublishTopic(StateTopic)); err != nil {
		p.log.Warn("LiveKit: state not sent", slog.Any("err", err))
	}
}
