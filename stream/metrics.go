package stream

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// encodeBuckets are the upper bounds, in seconds, of the encode-time histogram.
var encodeBuckets = []float64{0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16}

// keyReasons are the reasons a keyframe is asked for; each is exported from
// the start (at 0) so that rate() works from the first scrape.
var keyReasons = []string{"pli", "fir", "viewer"}

// metrics are the server's counters. The plain counters stay atomics, not
// prometheus.Counters, because Stats and tests read them back; they are
// exported through Collect, together with gauges read from the server at
// scrape time, so one scrape sees one consistent snapshot.
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

	encode   prometheus.Histogram
	keyReqs  *prometheus.CounterVec
	requests *prometheus.CounterVec

	// gauges reads the server's state; set by register, nil before.
	gauges func() gauges
}

func newMetrics() *metrics {
	m := &metrics{
		start: time.Now(),
		encode: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "ligretto_stream_encode_seconds", Help: "Time to encode one frame.", Buckets: encodeBuckets}),
		keyReqs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ligretto_stream_keyframe_requests_total", Help: "Keyframes asked for, by reason (pli, fir, viewer)."}, []string{"reason"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ligretto_http_requests_total", Help: "HTTP requests by route, method and status code."}, []string{"route", "method", "code"}),
	}
	for _, r := range keyReasons {
		m.keyReqs.WithLabelValues(r)
	}
	return m
}

func (m *metrics) observeEncode(d time.Duration) { m.encode.Observe(d.Seconds()) }

func (m *metrics) keyRequest(reason string) { m.keyReqs.WithLabelValues(reason).Inc() }

func (m *metrics) request(route, method string, code int) {
	// Methods are a label: bound them, whatever a client sends.
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodOptions, http.MethodPut:
	default:
		method = "other"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
}

// gauges are read from the server when /metrics is written.
type gauges struct {
	viewers, sessions, maxViewers int
	eventClients                  int
	lastFrameAge                  time.Duration
	haveFrame                     bool
	width, height                 int
	ingest                        IngestStats
}

// serverMetric is one metric that Collect writes from the server's atomics or gauges.
type serverMetric struct {
	d   *prometheus.Desc
	typ prometheus.ValueType
	val func(m *metrics, g gauges) float64
}

func serverCounter(name, help string, v func(m *metrics) *atomic.Uint64) serverMetric {
	return serverMetric{prometheus.NewDesc(name, help, nil, nil), prometheus.CounterValue,
		func(m *metrics, _ gauges) float64 { return float64(v(m).Load()) }}
}

func ingestCounter(name, help string, v func(IngestStats) uint64) serverMetric {
	return serverMetric{prometheus.NewDesc(name, help, nil, nil), prometheus.CounterValue,
		func(_ *metrics, g gauges) float64 { return float64(v(g.ingest)) }}
}

func serverGauge(name, help string, v func(m *metrics, g gauges) float64) serverMetric {
	return serverMetric{prometheus.NewDesc(name, help, nil, nil), prometheus.GaugeValue, v}
}

// serverMetrics keep the names and meaning of the hand-written format that
// came before client_golang, so dashboards need no change. go_goroutines
// now comes from the Go collector.
var serverMetrics = []serverMetric{
	serverGauge("ligretto_stream_viewers", "Viewers whose peer connection is connected.", func(_ *metrics, g gauges) float64 { return float64(g.viewers) }),
	serverGauge("ligretto_stream_sessions", "WHEP sessions, connecting or connected.", func(_ *metrics, g gauges) float64 { return float64(g.sessions) }),
	serverGauge("ligretto_stream_max_viewers", "The viewer cap.", func(_ *metrics, g gauges) float64 { return float64(g.maxViewers) }),
	serverGauge("ligretto_stream_event_clients", "Open /events streams (server-sent game state).", func(_ *metrics, g gauges) float64 { return float64(g.eventClients) }),
	serverCounter("ligretto_stream_sessions_total", "WHEP sessions created.", func(m *metrics) *atomic.Uint64 { return &m.sessionsTotal }),
	serverCounter("ligretto_stream_refused_total", "Viewers refused because the stream was full.", func(m *metrics) *atomic.Uint64 { return &m.refused }),
	serverCounter("ligretto_stream_frames_in_total", "Frames received from the source.", func(m *metrics) *atomic.Uint64 { return &m.framesIn }),
	serverCounter("ligretto_stream_frames_dropped_total", "Frames replaced by a newer one before they could be encoded.", func(m *metrics) *atomic.Uint64 { return &m.framesDropped }),
	serverCounter("ligretto_stream_frames_idle_total", "Frames not encoded because nobody was watching.", func(m *metrics) *atomic.Uint64 { return &m.framesIdle }),
	serverCounter("ligretto_stream_frames_encoded_total", "Frames encoded (once each, for all viewers).", func(m *metrics) *atomic.Uint64 { return &m.framesEncoded }),
	serverCounter("ligretto_stream_keyframes_total", "Keyframes encoded.", func(m *metrics) *atomic.Uint64 { return &m.keyframes }),
	serverCounter("ligretto_stream_encoded_bytes_total", "VP8 bytes produced.", func(m *metrics) *atomic.Uint64 { return &m.encodedBytes }),
	serverCounter("ligretto_stream_encode_errors_total", "Frames the encoder failed on.", func(m *metrics) *atomic.Uint64 { return &m.encodeErrors }),
	serverCounter("ligretto_stream_packets_resent_total", "RTP packets sent again because a viewer reported them lost (NACK).", func(m *metrics) *atomic.Uint64 { return &m.resent }),
	serverCounter("ligretto_stream_state_messages_total", "Game-state messages sent on DataChannels.", func(m *metrics) *atomic.Uint64 { return &m.stateSent }),
	serverCounter("ligretto_control_auth_failures_total", "Control requests with a missing or wrong token.", func(m *metrics) *atomic.Uint64 { return &m.authFailures }),
	serverGauge("ligretto_stream_last_frame_age_seconds", "Time since the source's last frame; -1 before the first.", func(_ *metrics, g gauges) float64 {
		if !g.haveFrame {
			return -1
		}
		return g.lastFrameAge.Seconds()
	}),
	serverGauge("ligretto_stream_width_pixels", "Width of the last frame.", func(_ *metrics, g gauges) float64 { return float64(g.width) }),
	serverGauge("ligretto_stream_height_pixels", "Height of the last frame.", func(_ *metrics, g gauges) float64 { return float64(g.height) }),
	ingestCounter("ligretto_ingest_frames_decoded_total", "Frames decoded from the camera publisher (a phone over WHIP).", func(i IngestStats) uint64 { return i.Decoded }),
	ingestCounter("ligretto_ingest_frames_dropped_total", "Camera frames lost in transit, skipped until a keyframe, or not decodable.", func(i IngestStats) uint64 { return i.Dropped }),
	ingestCounter("ligretto_ingest_keyframe_requests_total", "Keyframes asked of the camera publisher (PLI).", func(i IngestStats) uint64 { return i.KeyframeRequests }),
	ingestCounter("ligretto_ingest_publishers_total", "Camera publishers accepted.", func(i IngestStats) uint64 { return i.Publishers }),
	serverGauge("ligretto_ingest_live", "1 while a camera publishes.", func(_ *metrics, g gauges) float64 {
		if g.ingest.Live {
			return 1
		}
		return 0
	}),
	serverGauge("ligretto_process_uptime_seconds", "Time since the server started.", func(m *metrics, _ gauges) float64 { return time.Since(m.start).Seconds() }),
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range serverMetrics {
		ch <- d.d
	}
	m.encode.Describe(ch)
	m.keyReqs.Describe(ch)
	m.requests.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	var g gauges
	if m.gauges != nil {
		g = m.gauges()
	}
	for _, d := range serverMetrics {
		ch <- prometheus.MustNewConstMetric(d.d, d.typ, d.val(m, g))
	}
	m.encode.Collect(ch)
	m.keyReqs.Collect(ch)
	m.requests.Collect(ch)
}

// register puts the server's metrics on reg, or on a new registry when reg
// is nil, and adds the Go and process collectors unless reg already has
// some. It returns the registry that /metrics serves.
func (m *metrics) register(reg *prometheus.Registry, g func() gauges) (*prometheus.Registry, error) {
	m.gauges = g
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	// Registering is all or nothing for one collector, so a failure here
	// leaves reg as it was.
	if err := reg.Register(m); err != nil {
		return nil, fmt.Errorf("%w: register the stream metrics (one registry serves one server): %w", ErrConfig, err)
	}
	// A registry from the caller may hold Go and process collectors of its
	// own, perhaps with other options: those win, so errors are ignored.
	_ = reg.Register(collectors.NewGoCollector())
	_ = reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg, nil
}

// metricsHandler serves reg. A collector that fails does not hide the
// others: the scrape goes on, and the error is logged.
func metricsHandler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      promLogger{log},
		ErrorHandling: promhttp.ContinueOnError,
		// Bounds the work that scrapes can make; Prometheus scrapes one at a time.
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
}

type promLogger struct{ log *slog.Logger }

func (l promLogger) Println(v ...any) { l.log.Warn("metrics", slog.String("err", fmt.Sprint(v...))) }

// Registry is the Prometheus registry that /metrics serves: Config.Registry,
// or the server's own. Register other collectors (NewTableMetrics) on it to
// serve them on the same /metrics.
func (s *Server) Registry() *prometheus.Registry { return s.reg }
