package stream

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The pipeline stages that TableMetrics times. A stage name not in this
// list is counted as StageOther, so that a typo shows on /metrics instead
// of making a new series per spelling.
const (
	StageRectify  = "rectify"
	StageMotion   = "motion"
	StageDetect   = "detect"
	StageClassify = "classify"
	StageTrack    = "track"
	StageAnnotate = "annotate"
	StageCount    = "count"
	StageTotal    = "total" // the whole frame, all stages together
	StageOther    = "other"
)

// Stages lists the known stages in pipeline order.
var Stages = []string{StageRectify, StageMotion, StageDetect, StageClassify, StageTrack, StageAnnotate, StageCount, StageTotal}

// stageBuckets span a cheap stage on a small frame (0.2 ms) to a slow frame
// on 2 cores (1 s).
var stageBuckets = []float64{0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 1}

// TableMetrics are the match loop's metrics at one table, with names shared
// by every command that watches a table. Make it once per process (a
// registry takes each name once) and hand it to each match loop; its
// methods are safe for concurrent use. A nil *TableMetrics does nothing,
// so that code paths without metrics need no checks.
type TableMetrics struct {
	frames        prometheus.Counter
	stage         *prometheus.HistogramVec
	stageObs      map[string]prometheus.Observer // read-only after New: no lock
	observations  *prometheus.CounterVec
	verdicts      *prometheus.CounterVec
	reconnects    prometheus.Counter
	sourceDropped prometheus.Counter
	all           []prometheus.Collector
}

// NewTableMetrics makes the match loop's metrics and registers them on reg
// (usually Server.Registry()). It fails, leaving reg unchanged, when reg
// already holds metrics of the same names, e.g. a second TableMetrics.
func NewTableMetrics(reg prometheus.Registerer) (*TableMetrics, error) {
	if reg == nil {
		return nil, fmt.Errorf("%w: table metrics need a registry", ErrConfig)
	}
	m := &TableMetrics{
		frames: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ligretto_pipeline_frames_total", Help: "Frames that went through the vision pipeline."}),
		stage: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ligretto_pipeline_stage_seconds", Help: "Time spent in one pipeline stage for one frame, by stage (total: the whole frame).",
			Buckets: stageBuckets}, []string{"stage"}),
		observations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ligretto_observations_total", Help: "Observations the vision sent to the referee, by kind."}, []string{"kind"}),
		verdicts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ligretto_verdicts_total", Help: "Referee verdicts, by status and rule."}, []string{"status", "rule"}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ligretto_camera_reconnects_total", Help: "Times the camera or video source was opened again after it failed."}),
		sourceDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ligretto_source_frames_dropped_total", Help: "Source frames the match loop skipped because it was behind."}),
		stageObs: map[string]prometheus.Observer{},
	}
	// Known stages exist from the start, so that dashboards see 0, not nothing.
	for _, s := range Stages {
		m.stageObs[s] = m.stage.WithLabelValues(s)
	}
	m.stageObs[StageOther] = m.stage.WithLabelValues(StageOther)
	m.all = []prometheus.Collector{m.frames, m.stage, m.observations, m.verdicts, m.reconnects, m.sourceDropped}
	// One collector for all: the registry checks every name before it
	// registers any, so a failure leaves it unchanged.
	if err := reg.Register(collectorSet(m.all)); err != nil {
		return nil, fmt.Errorf("register the table metrics: %w", err)
	}
	return m, nil
}

// Unregister removes the metrics from reg, so that a new TableMetrics may
// take their names. It reports whether they were registered there.
func (m *TableMetrics) Unregister(reg prometheus.Registerer) bool {
	if m == nil || reg == nil {
		return false
	}
	return reg.Unregister(collectorSet(m.all))
}

// collectorSet registers several collectors as one.
type collectorSet []prometheus.Collector

func (cs collectorSet) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range cs {
		c.Describe(ch)
	}
}

func (cs collectorSet) Collect(ch chan<- prometheus.Metric) {
	for _, c := range cs {
		c.Collect(ch)
	}
}

// Frame counts one frame through the pipeline and records the time of each
// stage it timed (keys are the Stage constants; StageTotal for the whole).
func (m *TableMetrics) Frame(stages map[string]time.Duration) {
	if m == nil {
		return
	}
	m.frames.Inc()
	for name, d := range stages {
		m.Stage(name, d)
	}
}

// Stage records the time one stage took for one frame, without counting a
// frame.
func (m *TableMetrics) Stage(name string, d time.Duration) {
	if m == nil {
		return
	}
	o, ok := m.stageObs[name]
	if !ok {
		o = m.stageObs[StageOther]
	}
	o.Observe(d.Seconds())
}

// Observation counts one observation sent to the referee, by kind
// (referee.Kind: "pile_new", "pile_shows", "stop", ...).
func (m *TableMetrics) Observation(kind string) {
	if m == nil {
		return
	}
	m.observations.WithLabelValues(kind).Inc()
}

// Verdict counts one referee verdict by its status (referee.Status: "ok",
// "violation", ...) and rule ID (e.g. "C7"; "" where no rule applies).
func (m *TableMetrics) Verdict(status, rule string) {
	if m == nil {
		return
	}
	m.verdicts.WithLabelValues(status, rule).Inc()
}

// CameraReconnect counts one reopening of the camera or video source.
func (m *TableMetrics) CameraReconnect() {
	if m == nil {
		return
	}
	m.reconnects.Inc()
}

// SourceFramesDropped counts n source frames that the match loop skipped
// because it was behind.
func (m *TableMetrics) SourceFramesDropped(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.sourceDropped.Add(float64(n))
}
