package stream

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// encodeBuckets are the upper bounds, in seconds, of the encode-time histogram.
var encodeBuckets = []float64{0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16}

// metrics are the server's counters, written by hand in the Prometheus
// text format (version 0.0.4).
type metrics struct {
	start         time.Time
	framesIn      atomic.Uint64
	framesDropped atomic.Uint64 // replaced by a newer frame before encoding
	framesIdle    atomic.Uint64 // not encoded: nobody was watching
	framesEncoded atomic.Uint64
	keyframes     atomic.Uint64
	encodedBytes  atomic.Uint64
	encodeErrors  atomic.Uint64
	stateSent     atomic.Uint64
	authFailures  atomic.Uint64
	sessionsTotal atomic.Uint64
	refused       atomic.Uint64 // viewers refused: server full
	resent        atomic.Uint64 // RTP packets sent again after a NACK

	mu         sync.Mutex
	encodeSum  float64
	encodeHist []uint64 // cumulative is computed when written
	keyReqs    map[string]uint64
	requests   map[reqKey]uint64
}

type reqKey struct {
	route, method string
	code          int
}

func newMetrics() *metrics {
	return &metrics{start: time.Now(), encodeHist: make([]uint64, len(encodeBuckets)+1),
		keyReqs: map[string]uint64{}, requests: map[reqKey]uint64{}}
}

func (m *metrics) observeEncode(d time.Duration) {
	s := d.Seconds()
	i, _ := slices.BinarySearch(encodeBuckets, s)
	m.mu.Lock()
	m.encodeSum += s
	m.encodeHist[i]++
	m.mu.Unlock()
}

func (m *metrics) keyRequest(reason string) {
	m.mu.Lock()
	m.keyReqs[reason]++
	m.mu.Unlock()
}

func (m *metrics) request(route, method string, code int) {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodOptions, http.MethodPut:
	default:
		method = "other"
	}
	m.mu.Lock()
	m.requests[reqKey{route, method, code}]++
	m.mu.Unlock()
}

// gauges are read from the server when /metrics is written.
type gauges struct {
	viewers, sessions, maxViewers int
	lastFrameAge                  time.Duration
	haveFrame                     bool
	width, height                 int
}

func (m *metrics) write(w io.Writer, g gauges) {
	p := func(name, typ, help string) { fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ) }
	counter := func(name, help string, v uint64) {
		p(name, "counter", help)
		fmt.Fprintf(w, "%s %d\n", name, v)
	}
	gauge := func(name, help string, v float64) {
		p(name, "gauge", help)
		fmt.Fprintf(w, "%s %s\n", name, strconv.FormatFloat(v, 'g', -1, 64))
	}
	gauge("ligretto_stream_viewers", "Viewers whose peer connection is connected.", float64(g.viewers))
	gauge("ligretto_stream_sessions", "WHEP sessions, connecting or connected.", float64(g.sessions))
	gauge("ligretto_stream_max_viewers", "The viewer cap.", float64(g.maxViewers))
	counter("ligretto_stream_sessions_total", "WHEP sessions created.", m.sessionsTotal.Load())
	counter("ligretto_stream_refused_total", "Viewers refused because the stream was full.", m.refused.Load())
	counter("ligretto_stream_frames_in_total", "Frames received from the source.", m.framesIn.Load())
	counter("ligretto_stream_frames_dropped_total", "Frames replaced by a newer one before they could be encoded.", m.framesDropped.Load())
	counter("ligretto_stream_frames_idle_total", "Frames not encoded because nobody was watching.", m.framesIdle.Load())
	counter("ligretto_stream_frames_encoded_total", "Frames encoded (once each, for all viewers).", m.framesEncoded.Load())
	counter("ligretto_stream_keyframes_total", "Keyframes encoded.", m.keyframes.Load())
	counter("ligretto_stream_encoded_bytes_total", "VP8 bytes produced.", m.encodedBytes.Load())
	counter("ligretto_stream_encode_errors_total", "Frames the encoder failed on.", m.encodeErrors.Load())
	counter("ligretto_stream_packets_resent_total", "RTP packets sent again because a viewer reported them lost (NACK).", m.resent.Load())
	counter("ligretto_stream_state_messages_total", "Game-state messages sent on DataChannels.", m.stateSent.Load())
	counter("ligretto_control_auth_failures_total", "Control requests with a missing or wrong token.", m.authFailures.Load())
	age := -1.0
	if g.haveFrame {
		age = g.lastFrameAge.Seconds()
	}
	gauge("ligretto_stream_last_frame_age_seconds", "Time since the source's last frame; -1 before the first.", age)
	gauge("ligretto_stream_width_pixels", "Width of the last frame.", float64(g.width))
	gauge("ligretto_stream_height_pixels", "Height of the last frame.", float64(g.height))
	gauge("ligretto_process_uptime_seconds", "Time since the server started.", time.Since(m.start).Seconds())
	gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))

	m.mu.Lock()
	defer m.mu.Unlock()
	p("ligretto_stream_encode_seconds", "histogram", "Time to encode one frame.")
	var cum uint64
	for i, le := range encodeBuckets {
		cum += m.encodeHist[i]
		fmt.Fprintf(w, "ligretto_stream_encode_seconds_bucket{le=\"%s\"} %d\n", strconv.FormatFloat(le, 'g', -1, 64), cum)
	}
	cum += m.encodeHist[len(encodeBuckets)]
	fmt.Fprintf(w, "ligretto_stream_encode_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	fmt.Fprintf(w, "ligretto_stream_encode_seconds_sum %s\nligretto_stream_encode_seconds_count %d\n", strconv.FormatFloat(m.encodeSum, 'g', -1, 64), cum)

	p("ligretto_stream_keyframe_requests_total", "counter", "Keyframes asked for, by reason (pli, fir, viewer).")
	for _, r := range slices.Sorted(maps.Keys(m.keyReqs)) {
		fmt.Fprintf(w, "ligretto_stream_keyframe_requests_total{reason=%q} %d\n", r, m.keyReqs[r])
	}
	p("ligretto_http_requests_total", "counter", "HTTP requests by route, method and status code.")
	keys := slices.SortedFunc(maps.Keys(m.requests), func(a, b reqKey) int {
		return cmp.Or(cmp.Compare(a.route, b.route), cmp.Compare(a.method, b.method), cmp.Compare(a.code, b.code))
	})
	for _, k := range keys {
		fmt.Fprintf(w, "ligretto_http_requests_total{route=%q,method=%q,code=\"%d\"} %d\n", k.route, k.method, k.code, m.requests[k])
	}
}
