package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"ligretto/stream"
	"ligretto/stream/livekit"
)

// publishOptions are serve's flags for publishing to a LiveKit room.
type publishOptions struct {
	to, url, viewerURL, room string
}

func publishFlags(fs *flag.FlagSet) *publishOptions {
	o := &publishOptions{}
	fs.StringVar(&o.to, "publish", "", "also publish the annotated view and the state to an SFU: livekit (with --livekit-room), so that its viewers cost this machine nothing")
	fs.StringVar(&o.url, "livekit-url", "", "the LiveKit server, ws:// or wss:// (default $LIVEKIT_URL); the API key and secret come from $LIVEKIT_API_KEY and $LIVEKIT_API_SECRET")
	fs.StringVar(&o.viewerURL, "livekit-viewer-url", "", "the LiveKit server's address as spectators' browsers reach it, if it differs from --livekit-url")
	fs.StringVar(&o.room, "livekit-room", "", "the LiveKit room to publish in")
	return o
}

// config is the publisher's config, nil when serve publishes nowhere.
func (o *publishOptions) config(log *slog.Logger, reg prometheus.Registerer, stderr io.Writer) (*livekit.Config, error) {
	switch o.to {
	case "":
		if o.room != "" || o.url != "" {
			fmt.Fprintln(stderr, "ligretto serve: --livekit-room and --livekit-url need --publish livekit")
			return nil, errUsage
		}
		return nil, nil
	case "livekit":
	default:
		fmt.Fprintf(stderr, "ligretto serve: --publish %q: the one SFU it publishes to is livekit\n", o.to)
		return nil, errUsage
	}
	c := livekit.Config{URL: o.url, ViewerURL: o.viewerURL, Room: o.room, Logger: log, Registry: reg}.FromEnv()
	if err := c.Validate(); err != nil {
		fmt.Fprintf(stderr, "ligretto serve: %v\n", err)
		return nil, errUsage
	}
	return &c, nil
}

// apply returns the publisher's config (nil when serve publishes nowhere)
// and lets the server's page hand out viewer tokens (GET /api/room).
func (o *publishOptions) apply(cfg *stream.Config, log *slog.Logger, stderr io.Writer) (*livekit.Config, error) {
	c, err := o.config(log, cfg.Registry, stderr)
	if c != nil {
		room := *c
		cfg.RoomJoin = func() (stream.RoomJoin, error) {
			j, err := livekit.ViewerToken(room)
			return stream.RoomJoin(j), err
		}
	}
	return c, err
}

// publishToRoom starts publishing srv's view to the room c until ctx
// ends, if c is not nil; wait waits for the publisher to leave the room.
func publishToRoom(ctx context.Context, c *livekit.Config, srv *stream.Server, stdout io.Writer, page string) (wait func(), err error) {
	if c == nil {
		return func() {}, nil
	}
	pub, err := livekit.New(*c, srv.RequestKeyframe)
	if err != nil {
		return nil, err
	}
	srv.AddRelay(pub)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = pub.Run(ctx)
	}()
	fmt.Fprintf(stdout, "LiveKit: publishing to room %q at %s (it joins again by itself if the server goes away); spectators watch from the room at %s/?via=room\n", c.Room, c.URL, page)
	return func() { <-done }, nil
}
