package livekit

import (
	"context"
	"log/slog"
	"sync"

	"github.com/go-logr/logr"
	protoLogger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// sdkLogger hands the LiveKit SDK's logs (and pion's, through it) to l at
// debug level: the SDK logs every failed retry as an error, which would
// drown the publisher's own account of joins and losses (Run logs those).
func sdkLogger(l *slog.Logger) protoLogger.Logger {
	return protoLogger.LogRLogger(logr.FromSlogHandler(debugHandler{l.Handler()}))
}

var setSDKLogger sync.Once

// QuietSDK sets the SDK's package logger, which it uses before a room's
// own, to l at debug level. Once for the process, the first caller's l:
// the SDK's goroutines read that logger unguarded, so it is never set
// again while a room runs. Every user of the SDK in this program (the
// publisher, the viewer) sets it through here.
func QuietSDK(l *slog.Logger) {
	setSDKLogger.Do(func() { lksdk.SetLogger(sdkLogger(l)) })
}

// debugHandler lowers every record to debug.
type debugHandler struct{ h slog.Handler }

func (d debugHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return d.h.Enabled(ctx, lower(l))
}

func (d debugHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lower(r.Level)
	return d.h.Handle(ctx, r)
}

func (d debugHandler) WithAttrs(a []slog.Attr) slog.Handler { return debugHandler{d.h.WithAttrs(a)} }
func (d debugHandler) WithGroup(n string) slog.Handler      { return debugHandler{d.h.WithGroup(n)} }

func lower(slog.Level) slog.Level { return slog.LevelDebug }
