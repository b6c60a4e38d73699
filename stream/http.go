package stream

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
)

//go:embed web
var webFS embed.FS

// routes builds the handler. Every route is instrumented and recovers
// from panics.
func (s *Server) routes() http.Handler {
	static, err := fs.Sub(webFS, "web/static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", s.instrument("page", s.spectatorPage()))
	mux.Handle("GET /console", s.instrument("console", page("web/console.html", true)))
	mux.Handle("GET /overlay", s.instrument("overlay", page("web/overlay.html", false)))
	mux.Handle("GET /events", s.instrument("events", http.HandlerFunc(s.serveEvents)))
	mux.Handle("GET /static/", s.instrument("static", staticHandler(static)))
	mux.Handle(whepPath, s.instrument("whep", http.HandlerFunc(s.whepEndpoint)))
	mux.Handle(whepSessionsPath+"{id}", s.instrument("whep_session", http.HandlerFunc(s.whepSession)))
	mux.Handle("GET /camera", s.instrument("camera", page("web/camera.html", true)))
	mux.Handle(whipPath, s.instrument("whip", http.HandlerFunc(s.whipEndpoint)))
	mux.Handle(whipSessionsPath+"{id}", s.instrument("whip_session", http.HandlerFunc(s.whipSession)))
	// More specific than /api/, so it is not behind the operator token:
	// the camera's token opens it too.
	mux.Handle("GET /api/camera/status", s.instrument("camera_status", http.HandlerFunc(s.serveCameraStatus)))
	mux.Handle("GET /api/room", s.instrument("room", http.HandlerFunc(s.serveRoomJoin)))
	mux.Handle("/api/", s.instrument("api", s.requireToken(s.apiRoutes())))
	mux.Handle("GET /metrics", s.instrument("metrics", metricsHandler(s.reg, s.log)))
	mux.Handle("GET /healthz", s.instrument("healthz", http.HandlerFunc(s.serveHealth)))
	return mux
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// instrument counts requests by route and status, and turns a panic into
// a 500 so that one bad request cannot take the server down.
func (s *Server) instrument(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("handler panic", slog.String("route", route), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				if rec.code == 0 {
					textError(rec, http.StatusInternalServerError, "internal error")
				}
			}
			if rec.code == 0 {
				rec.code = http.StatusOK
			}
			s.met.request(route, r.Method, rec.code)
		}()
		h.ServeHTTP(rec, r)
	})
}

// securityHeaders are set on every page: scripts and styles only from the
// server itself, video from blob: (WebRTC), no framing for the console.
// connect adds sources the page may connect to besides the server itself.
func securityHeaders(h http.Header, console bool, connect ...string) {
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; "+
		"connect-src "+strings.Join(append([]string{"'self'"}, connect...), " ")+
		"; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors "+
		map[bool]string{true: "'none'", false: "*"}[console])
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if console {
		h.Set("X-Frame-Options", "DENY")
	}
}

func page(name string, console bool) http.Handler {
	body, err := webFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header(), console)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
	})
}

func staticHandler(static fs.FS) http.Handler {
	fsrv := http.StripPrefix("/static/", http.FileServerFS(static))
	tags := contentTags(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		// With an ETag, a browser that has the file (LiveKit's client is
		// 600 KB) is answered 304 by the file server.
		if tag, ok := tags[strings.TrimPrefix(r.URL.Path, "/static/")]; ok {
			w.Header().Set("ETag", tag)
		}
		fsrv.ServeHTTP(w, r)
	})
}

// contentTags are the embedded files' ETags, from their contents.
func contentTags(static fs.FS) map[string]string {
	tags := map[string]string{}
	_ = fs.WalkDir(static, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(static, path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		tags[path] = `"` + hex.EncodeToString(sum[:12]) + `"`
		return nil
	})
	return tags
}

// health is /healthz's answer.
type health struct {
	Status      string `json:"status"` // ok, starting, stale
	LastFrameMS int64  `json:"last_frame_age_ms"`
	Viewers     int    `json:"viewers"`
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	g := s.gauges()
	h := health{Status: "ok", LastFrameMS: -1, Viewers: g.viewers}
	code := http.StatusOK
	switch {
	case !g.haveFrame && time.Since(s.met.start) < s.cfg.StaleAfter:
		h.Status = "starting"
	case !g.haveFrame:
		h.Status, code = "no frames", http.StatusServiceUnavailable
	case g.lastFrameAge > s.cfg.StaleAfter:
		h.Status, code = "stale", http.StatusServiceUnavailable
	}
	if g.haveFrame {
		h.LastFrameMS = g.lastFrameAge.Milliseconds()
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, code, h)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	_ = enc.Encode(v)
}
