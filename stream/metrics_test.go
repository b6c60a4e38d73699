package stream

import (
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"ligretto/referee"
)

// scrape GETs /metrics from a real HTTP server over h and parses it.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	hs := httptest.NewServer(h)
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// sample finds the series of name whose labels include want. For a
// histogram it returns the sample count and sum; otherwise the value and 0.
func sample(t *testing.T, fams map[string]*dto.MetricFamily, name string, want ...string) (v, sum float64) {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("/metrics has no %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if got[want[i]] != want[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), 0
		case m.Gauge != nil:
			return m.Gauge.GetValue(), 0
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), m.Histogram.GetSampleSum()
		}
	}
	t.Fatalf("/metrics has no %s%v", name, want)
	return 0, 0
}

func newMetricsServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg, &stoppingSource{}, NewRefereeGame(referee.New(), nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestTableMetrics_Scrape: the match loop's metrics, registered on the
// server's registry, are served by /metrics with the values of the events.
func TestTableMetrics_Scrape(t *testing.T) {
	s := newMetricsServer(t, testConfig())
	tm, err := NewTableMetrics(s.Registry())
	if err != nil {
		t.Fatal(err)
	}
	tm.Frame(map[string]time.Duration{StageRectify: 2 * time.Millisecond, StageTotal: 5 * time.Millisecond, "rectfy": time.Millisecond})
	tm.Frame(map[string]time.Duration{StageRectify: 4 * time.Millisecond})
	tm.Frame(nil)
	tm.Stage(StageClassify, 30*time.Millisecond)
	tm.Observation("pile_new")
	tm.Observation("pile_new")
	tm.Observation("stop")
	tm.Verdict("violation", "C7")
	tm.Verdict("ok", "")
	tm.CameraReconnect()
	tm.SourceFramesDropped(4)
	tm.SourceFramesDropped(-1) // ignored: counters only go up

	fams := scrape(t, s.Handler())
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"ligretto_pipeline_frames_total", nil, 3},
		{"ligretto_observations_total", []string{"kind", "pile_new"}, 2},
		{"ligretto_observations_total", []string{"kind", "stop"}, 1},
		{"ligretto_verdicts_total", []string{"status", "violation", "rule", "C7"}, 1},
		{"ligretto_verdicts_total", []string{"status", "ok", "rule", ""}, 1},
		{"ligretto_camera_reconnects_total", nil, 1},
		// The server's own: no camera published here.
		{"ligretto_ingest_frames_decoded_total", nil, 0},
		{"ligretto_ingest_frames_dropped_total", nil, 0},
		{"ligretto_source_frames_dropped_total", nil, 4},
		// Stage histograms: sample counts.
		{"ligretto_pipeline_stage_seconds", []string{"stage", "rectify"}, 2},
		{"ligretto_pipeline_stage_seconds", []string{"stage", "total"}, 1},
		{"ligretto_pipeline_stage_seconds", []string{"stage", "classify"}, 1},
		{"ligretto_pipeline_stage_seconds", []string{"stage", "other"}, 1},  // the misspelt stage
		{"ligretto_pipeline_stage_seconds", []string{"stage", "detect"}, 0}, // known stages exist at 0
		// The server's own metrics and the runtime's are on the same page.
		{"ligretto_stream_max_viewers", nil, 50},
		{"ligretto_stream_frames_in_total", nil, 0},
	} {
		if got, _ := sample(t, fams, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if _, sum := sample(t, fams, "ligretto_pipeline_stage_seconds", "stage", "rectify"); math.Abs(sum-0.006) > 1e-9 {
		t.Errorf("rectify sum %v s, want 0.006", sum)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "ligretto_stream_keyframe_requests_total"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("/metrics has no %s", name)
		}
	}
	if v, _ := sample(t, fams, "ligretto_stream_keyframe_requests_total", "reason", "pli"); v != 0 {
		t.Errorf("keyframe requests for pli: %v before any", v)
	}
}

// TestTableMetrics_RegisterTwice: a second set on one registry is an error,
// not a panic, and leaves the registry as it was.
func TestTableMetrics_RegisterTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	first, err := NewTableMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	first.Frame(nil)
	second, err := NewTableMetrics(reg)
	var are prometheus.AlreadyRegisteredError
	if err == nil || second != nil || !errors.As(err, &are) {
		t.Fatalf("second registration: %v, %v; want an AlreadyRegisteredError", second, err)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather after the failed registration: %v", err)
	}
	for _, f := range fams {
		if f.GetName() == "ligretto_pipeline_frames_total" && f.GetMetric()[0].GetCounter().GetValue() != 1 {
			t.Fatalf("the first set's frames: %v", f.GetMetric()[0])
		}
	}

	// Unregistered, the names are free again.
	if !first.Unregister(reg) {
		t.Fatal("Unregister found nothing")
	}
	if _, err := NewTableMetrics(reg); err != nil {
		t.Fatalf("after Unregister: %v", err)
	}

	// One name taken by someone else: nothing of the set is registered.
	other := prometheus.NewRegistry()
	other.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "ligretto_camera_reconnects_total", Help: "not ours"}))
	if _, err := NewTableMetrics(other); err == nil {
		t.Fatal("a clashing name was accepted")
	}
	if fams, _ := other.Gather(); len(fams) != 1 {
		t.Fatalf("a failed registration left %d families, want 1", len(fams))
	}

	if _, err := NewTableMetrics(nil); !errors.Is(err, ErrConfig) {
		t.Fatalf("nil registry: %v", err)
	}
	// A nil set does nothing, so call sites need no checks.
	var none *TableMetrics
	none.Frame(map[string]time.Duration{StageTotal: time.Second})
	none.Observation("x")
	none.Verdict("ok", "")
	none.CameraReconnect()
	none.SourceFramesDropped(1)
}

// TestServerRegistry: a registry from the config is the one served, with
// what others put on it; a second server on it is refused.
func TestServerRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector()) // the caller's own: no clash
	mine := prometheus.NewCounter(prometheus.CounterOpts{Name: "someone_else_total", Help: "registered before the server"})
	reg.MustRegister(mine)
	mine.Add(7)
	cfg := testConfig()
	cfg.Registry = reg
	s := newMetricsServer(t, cfg)
	if s.Registry() != reg {
		t.Fatal("Registry() is not Config.Registry")
	}
	fams := scrape(t, s.Handler())
	if v, _ := sample(t, fams, "someone_else_total"); v != 7 {
		t.Fatalf("someone_else_total = %v", v)
	}
	sample(t, fams, "ligretto_stream_viewers")
	sample(t, fams, "process_start_time_seconds")

	if s2, err := New(cfg, &stoppingSource{}, NewRefereeGame(referee.New(), nil)); !errors.Is(err, ErrConfig) {
		if s2 != nil {
			s2.Close()
		}
		t.Fatalf("a second server on one registry: %v", err)
	}

	// Without one, each server has its own.
	a, b := newMetricsServer(t, testConfig()), newMetricsServer(t, testConfig())
	if a.Registry() == nil || a.Registry() == b.Registry() {
		t.Fatalf("own registries: %p %p", a.Registry(), b.Registry())
	}
}

// TestTableMetrics_Concurrent: methods and scrapes at once (run with -race).
func TestTableMetrics_Concurrent(t *testing.T) {
	s := newMetricsServer(t, testConfig())
	tm, err := NewTableMetrics(s.Registry())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				tm.Frame(map[string]time.Duration{StageDetect: time.Millisecond})
				tm.Verdict("ok", "")
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		}
	})
	wg.Wait()
	fams := scrape(t, s.Handler())
	if v, _ := sample(t, fams, "ligretto_pipeline_frames_total"); v != 800 {
		t.Fatalf("frames %v, want 800", v)
	}
	if v, _ := sample(t, fams, "ligretto_pipeline_stage_seconds", "stage", "detect"); v != 800 {
		t.Fatalf("detect samples %v, want 800", v)
	}
}
