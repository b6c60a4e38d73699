package stream

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/pion/logging"
)

// pionLogs routes pion's logs into slog: its errors (mostly one viewer's
// network trouble) as warnings, its warnings as debug, the rest dropped.
type pionLogs struct{ log *slog.Logger }

func (f pionLogs) NewLogger(scope string) logging.LeveledLogger {
	return pionLogger{f.log.With(slog.String("pion", scope))}
}

type pionLogger struct{ log *slog.Logger }

func (l pionLogger) Trace(string)          {}
func (l pionLogger) Tracef(string, ...any) {}
func (l pionLogger) Debug(string)          {}
func (l pionLogger) Debugf(string, ...any) {}
func (l pionLogger) Info(string)           {}
func (l pionLogger) Infof(string, ...any)  {}
func (l pionLogger) Warn(msg string)       { l.at(slog.LevelDebug, msg) }
func (l pionLogger) Warnf(format string, args ...any) {
	l.at(slog.LevelDebug, fmt.Sprintf(format, args...))
}
func (l pionLogger) Error(msg string) { l.at(slog.LevelWarn, msg) }
func (l pionLogger) Errorf(format string, args ...any) {
	l.at(slog.LevelWarn, fmt.Sprintf(format, args...))
}

func (l pionLogger) at(level slog.Level, msg string) {
	if l.log.Enabled(context.Background(), level) {
		l.log.Log(context.Background(), level, msg)
	}
}
