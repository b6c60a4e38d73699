package stream

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Config sets up a Server. The zero value of every field means its default.
type Config struct {
	// Token is the operator token for the control API. Empty disables the
	// control API (every call answers 403).
	Token string
	// CameraToken lets a camera publish its video by WHIP (POST /whip with
	// "Authorization: Bearer CameraToken"); it opens nothing else but the
	// camera's status. Empty: no camera can publish until
	// Server.NewCameraToken makes one.
	CameraToken string
	// Ingest receives the camera's decoded pictures. Nil: they are
	// decoded and counted (IngestStats), then dropped.
	Ingest Ingest
	// CameraStatus, if set, tells the camera page what the table looks
	// like from the camera (GET /api/camera/status).
	CameraStatus func() CameraStatus
	// MaxViewers caps WHEP sessions, connecting or connected. Default 50.
	MaxViewers int
	// MaxEventClients caps the open /events streams (overlays). Default 200.
	MaxEventClients int
	// UDPAddr is where the one ICE UDP socket listens, e.g. ":8443" or
	// "127.0.0.1:0". Default ":0" (a free port on every interface).
	UDPAddr string
	// PublicIPs, if set, are announced as the host candidates' addresses
	// (a server behind 1:1 NAT).
	PublicIPs []string

	// Bitrate is the VP8 target in bits per second. Default 1_200_000.
	Bitrate int
	// KeyframeEvery is the longest run of frames between keyframes. Default 100.
	KeyframeEvery int
	// EncoderSpeed is libvpx's real-time speed, 4 (best) to 16 (fastest).
	// Default 8.
	EncoderSpeed int
	// NACKHistory is how many of the last RTP packets are kept to send
	// again to a viewer that reports them lost (a generic NACK), for all
	// viewers together. Default 1024 (several seconds at any bitrate here);
	// it is rounded up to a power of two, at most 32768. Negative turns loss
	// recovery by retransmission off and stops offering NACK in the SDP:
	// a viewer that loses a packet then asks for a keyframe (PLI), which
	// every viewer is sent, with its picture broken until it arrives. Only
	// for links that do not lose packets; the history is shared by all
	// viewers and costs little.
	NACKHistory int
	// KeyframeGap throttles keyframes asked for by viewers (PLI, FIR, a new
	// viewer): at most one per gap. Default 500 ms.
	KeyframeGap time.Duration

	// AuthFailDelay bounds the random delay before answering a wrong or
	// missing token. Default 250 ms; negative means none (tests).
	AuthFailDelay time.Duration
	// ConnectTimeout ends a WHEP session that has not connected by then.
	// Default 20 s.
	ConnectTimeout time.Duration
	// StaleAfter makes /healthz fail when no frame came for this long.
	// Default 5 s.
	StaleAfter time.Duration
	// StateInterval is the shortest time between two state broadcasts.
	// Default 100 ms.
	StateInterval time.Duration

	// Logger receives the server's logs. Default slog.Default().
	Logger *slog.Logger
	// CameraURL is the address a phone on the table's network opens the
	// server at (https://IP:PORT: phones give a camera only to secure
	// pages); the console shows the camera page's link and QR code with it.
	CameraURL string

	// RoomJoin, if set, makes a viewer token for the LiveKit room the table
	// is published to (GET /api/room), so that the spectator page can
	// watch from the room.
	RoomJoin func() (RoomJoin, error)

	// Table, if set, lets the operator console calibrate the table again,
	// save its calibration and load one (see Table).
	Table Table

	// Registry is where the server registers its metrics and what /metrics
	// serves; the match loop registers its own on it too (NewTableMetrics).
	// Default: a new registry. Either way the Go and process collectors are
	// added, unless the registry has its own. One registry serves one Server.
	Registry *prometheus.Registry
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MaxViewers, 50)
	def(&c.MaxEventClients, 200)
	def(&c.Bitrate, 1_200_000)
	def(&c.KeyframeEvery, 100)
	def(&c.EncoderSpeed, 8)
	def(&c.NACKHistory, 1024)
	defD(&c.KeyframeGap, 500*time.Millisecond)
	defD(&c.AuthFailDelay, 250*time.Millisecond)
	defD(&c.ConnectTimeout, 20*time.Second)
	defD(&c.StaleAfter, 5*time.Second)
	defD(&c.StateInterval, 100*time.Millisecond)
	if c.UDPAddr == "" {
		c.UDPAddr = ":0"
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Validate checks the config after defaults are applied.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.MaxViewers < 1 || c.MaxViewers > 10_000:
		return fmt.Errorf("%w: max viewers %d (want 1..10000)", ErrConfig, c.MaxViewers)
	case c.MaxEventClients < 1 || c.MaxEventClients > 10_000:
		return fmt.Errorf("%w: max event clients %d (want 1..10000)", ErrConfig, c.MaxEventClients)
	case c.Bitrate < 50_000 || c.Bitrate > 50_000_000:
		return fmt.Errorf("%w: bitrate %d (want 50k..50M bit/s)", ErrConfig, c.Bitrate)
	case c.KeyframeEvery < 1:
		return fmt.Errorf("%w: keyframe interval %d frames", ErrConfig, c.KeyframeEvery)
	case c.EncoderSpeed < 4 || c.EncoderSpeed > 16:
		return fmt.Errorf("%w: encoder speed %d (want 4..16)", ErrConfig, c.EncoderSpeed)
	case c.NACKHistory > 1<<15:
		return fmt.Errorf("%w: NACK history %d packets (want at most 32768, or negative for none)", ErrConfig, c.NACKHistory)
	case c.Token != "" && len(c.Token) < 8:
		return fmt.Errorf("%w: the operator token is too short (want 8 characters or more)", ErrConfig)
	case c.CameraToken != "" && len(c.CameraToken) < 8:
		return fmt.Errorf("%w: the camera token is too short (want 8 characters or more)", ErrConfig)
	case c.CameraToken != "" && c.CameraToken == c.Token:
		return fmt.Errorf("%w: the camera token must differ from the operator token", ErrConfig)
	case !tokenChars(c.CameraToken):
		return fmt.Errorf("%w: the camera token may hold only letters, digits, '-', '_' and '.' (it goes in the page's address)", ErrConfig)
	}
	return nil
}

// tokenChars reports whether s can go into a URL and a header unescaped.
func tokenChars(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
