package stream

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// spectatorPage serves the spectator page. When the table is published to
// a LiveKit room (Config.RoomJoin), the page may watch from the room, so its
// Content-Security-Policy lets it connect to the room's server too: the
// WebSocket LiveKit's client signals on and the same address over HTTP(S),
// which the client asks why a connection was refused. The address is
// learnt from the first RoomJoin that works and kept.
func (s *Server) spectatorPage() http.Handler {
	body, err := webFS.ReadFile("web/index.html")
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	var known []string // nil until learnt
	sources := func() []string {
		if s.cfg.RoomJoin == nil {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if known == nil {
			j, err := s.cfg.RoomJoin()
			if err != nil {
				s.log.Warn("spectator page: no LiveKit room address", slog.Any("err", err))
				return nil
			}
			known = roomSources(j.URL)
			if len(known) == 0 {
				s.log.Warn("spectator page: the LiveKit room address is no ws://, wss://, http:// or https:// address; the page cannot watch from the room",
					slog.String("url", j.URL))
			}
		}
		return known
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		securityHeaders(w.Header(), false, sources()...)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
	})
}

// roomSources are the CSP sources for a LiveKit server's address: its
// WebSocket origin and its HTTP origin (ws:// and http://, or wss:// and
// https://). An address that cannot be one gives an empty slice, not nil,
// so that spectatorPage does not ask for it again.
func roomSources(raw string) []string {
	none := []string{}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || strings.ContainsAny(u.Host, " ;,'\"\\\t\r\n") {
		return none
	}
	host := strings.ToLower(u.Host)
	switch strings.ToLower(u.Scheme) {
	case "ws", "http":
		return []string{"ws://" + host, "http://" + host}
	case "wss", "https":
		return []string{"wss://" + host, "https://" + host}
	}
	return none
}
