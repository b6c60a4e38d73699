package livekit

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ErrConfig: a Config is incomplete or wrong.
var ErrConfig = errors.New("invalid LiveKit config")

// Config says where to publish: a LiveKit server, its API key and secret,
// and the room.
type Config struct {
	// URL is the LiveKit server's address as the referee reaches it,
	// ws:// or wss:// (http:// and https:// are taken as those).
	URL string
	// ViewerURL is the address spectators' browsers reach it at, when it
	// differs from URL (a server on the same host, seen by the referee at
	// ws://localhost). Default URL.
	ViewerURL string
	APIKey    string
	APISecret string
	// Room is the room to publish in; LiveKit makes it when the referee
	// joins.
	Room string
	// Identity is the publisher's identity in the room. Default "referee".
	Identity string
	// ViewerTTL is how long a viewer token lets a spectator join. Default 6 h.
	ViewerTTL time.Duration
	// RetryMax bounds the wait between two connection attempts. Default 2 s.
	RetryMax time.Duration
	// Logger receives the publisher's logs. Default slog.Default().
	Logger *slog.Logger
	// Registry, if set, gets the publisher's metrics.
	Registry prometheus.Registerer
}

// FromEnv fills what c leaves empty from LIVEKIT_URL, LIVEKIT_API_KEY and
// LIVEKIT_API_SECRET, as LiveKit's own tools do.
func (c Config) FromEnv() Config {
	set := func(v *string, name string) {
		if *v == "" {
			*v = os.Getenv(name)
		}
	}
	set(&c.URL, "LIVEKIT_URL")
	set(&c.APIKey, "LIVEKIT_API_KEY")
	set(&c.APISecret, "LIVEKIT_API_SECRET")
	return c
}

func (c Config) withDefaults() Config {
	if c.Identity == "" {
		c.Identity = "referee"
	}
	if c.ViewerURL == "" {
		c.ViewerURL = c.URL
	}
	if c.ViewerTTL == 0 {
		c.ViewerTTL = 6 * time.Hour
	}
	if c.RetryMax == 0 {
		c.RetryMax = 2 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Validate says what is missing or wrong, naming the flag or variable
// that sets it.
func (c Config) Validate() error {
	c = c.withDefaults()
	if c.URL == "" {
		return fmt.Errorf("%w: no server address (--livekit-url or LIVEKIT_URL)", ErrConfig)
	}
	for _, u := range []string{c.URL, c.ViewerURL} {
		p, err := url.Parse(u)
		if err != nil {
			return fmt.Errorf("%w: server address %q: %v", ErrConfig, u, err)
		}
		switch p.Scheme {
		case "ws", "wss", "http", "https":
		default:
			return fmt.Errorf("%w: server address %q (want ws://, wss://, http:// or https://)", ErrConfig, u)
		}
		if p.Host == "" {
			return fmt.Errorf("%w: server address %q has no host", ErrConfig, u)
		}
	}
	switch {
	case c.APIKey == "" || c.APISecret == "":
		return fmt.Errorf("%w: no API key and secret (LIVEKIT_API_KEY and LIVEKIT_API_SECRET)", ErrConfig)
	case c.Room == "":
		return fmt.Errorf("%w: no room (--livekit-room)", ErrConfig)
	case len(c.Room) > 128:
		return fmt.Errorf("%w: the room name is longer than 128 bytes", ErrConfig)
	case c.ViewerTTL < time.Minute:
		return fmt.Errorf("%w: viewer tokens valid for %v (want a minute or more)", ErrConfig, c.ViewerTTL)
	}
	return nil
}
