package vision

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
)

// Timing is the time spent in each stage, summed over frames.
type Timing struct {
	Frames                                   int
	Rectify, Motion, Detect, Classify, Track time.Duration
	Crops                                    int // crops classified
}

// frameHook watches each frame after the pipeline and passes its
// observations on, amended: the Attributor (see attachAttributor).
type frameHook interface {
	Observe(frame gocv.Mat, tMS int64, playing bool, obs []referee.Observation) ([]referee.Observation, error)
	Close()
}

// Pipeline turns frames into referee observations. It is not safe for
// concurrent use. Close it to free its images.
type Pipeline struct {
	cfg    PipelineConfig
	n      frameCounts // cfg's times in frames at rate's rate
	rate   frameRate
	cal    *calibration.File
	view   *tableView
	pred   model.Predictor
	mcfg   model.Config
	protos [][]float32
	names  []string

	rect, prev gocv.Mat
	bg         gocv.Mat // the empty table (whole table, work scale), or empty
	bare       bareMap  // when each spot of the centre was last seen as bare table
	// bareLight shows the centre of bg under the current light, bareBg,
	// refreshed every relightFrames: the bare map and the finder compare
	// with it.
	bareLight  *relighter
	bareBg     gocv.Mat
	bareTex    *tableTexture // bareBg's texture
	bareLit    int
	full       gocv.Mat
	frame      int
	piles      []*pile
	nextID     int
	phase      referee.Phase
	backFrames int
	counted    bool
	// counting is the count under way, spread over frames; frameStart is
	// when the current frame's Process began.
	counting   *countJob
	frameStart time.Time
	// seatsDown counts the checks in a row that saw the count in the
	// seats, rowsSeen whether the seats showed their rows this round
	// (see watchSeats).
	seatsDown int
	rowsSeen  bool
	// seatCards are the seats' cards cut a frame before the check.
	seatCards *seatCards
	// centreMotion is the fraction of the centre that changed since the
	// last frame.
	centreMotion float64
	// cardAreas are the outline areas of the last piles' first cards,
	// cardArea their median: a lone card's area on this table.
	cardAreas []float64
	cardArea  float64
	t         Timing
	hook      frameHook // nil unless cfg.Attribute (then the Attributor)
}

// NewPipeline makes a pipeline for frames of the calibrated camera.
func NewPipeline(cal *calibration.File, pred model.Predictor, cfg PipelineConfig) (*Pipeline, error) {
	mcfg := pred.Config()
	if err := cal.Validate(); err != nil {
		return nil, err
	}
	if !cal.Enrolled() {
		return nil, fmt.Errorf("%w: no enrolled card backs (run `ligretto calibrate` with every player showing a back)", calibration.ErrZone)
	}
	for _, s := range cal.Seats {
		if len(s.Prototype) != mcfg.BackEmbeddingLen() {
			return nil, fmt.Errorf("%w: the back prototype of %s has %d values, this classifier's %d (it was enrolled by another model)", calibration.ErrMalformed, s.Player, len(s.Prototype), mcfg.BackEmbeddingLen())
		}
	}
	p := &Pipeline{cfg: cfg, n: cfg.frameCounts(cmp.Or(cfg.FPS, tunedFPS)), cal: cal, pred: pred, mcfg: mcfg, rect: gocv.NewMat(), prev: gocv.NewMat(), bg: gocv.NewMat(), full: gocv.NewMat(),
		bareBg: gocv.NewMat(), phase: referee.PhaseNoMatch}
	for _, s := range cal.Seats {
		p.protos = append(p.protos, s.Prototype)
		p.names = append(p.names, s.Player)
	}
	if len(cal.Background) > 0 {
		bg, err := gocv.IMDecode(cal.Background, gocv.IMReadColor)
		p.bg.Close()
		p.bg = bg
		if err != nil || p.bg.Empty() {
			p.Close()
			return nil, fmt.Errorf("%w: the background image does not decode", calibration.ErrMalformed)
		}
	}
	if err := p.attachAttributor(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Close frees the pipeline's images.
func (p *Pipeline) Close() {
	p.rect.Close()
	p.prev.Close()
	p.bg.Close()
	p.full.Close()
	p.bareBg.Close()
	if p.bareTex != nil {
		p.bareTex.Close()
	}
	if p.bareLight != nil {
		p.bareLight.Close()
	}
	if p.hook != nil {
		p.hook.Close()
	}
	if p.counting != nil {
		p.counting.Close()
	}
	if p.view != nil {
		p.view.Close()
	}
}

// Timing returns the time spent per stage so far.
func (p *Pipeline) Timing() Timing { return p.t }

// Players are the calibrated players, in seat order.
func (p *Pipeline) Players() []referee.Player {
	var out []referee.Player
	for _, s := range p.cal.Seats {
		b := s.Back
		if b == "" {
			b = "back-" + s.Player
		}
		out = append(out, referee.Player{Name: s.Player, Back: b})
	}
	return out
}

// Start returns the observations that open a match and its first round.
func (p *Pipeline) Start(tMS int64) []referee.Observation {
	s := p.cfg.Settings
	p.phase = referee.PhasePlaying
	return []referee.Observation{
		{Kind: referee.ObsMatch, TimeMS: tMS, Players: p.Players(), Settings: &s, By: "camera"},
		{Kind: referee.ObsRound, TimeMS: tMS, By: "camera"},
	}
}

// Process looks at one BGR frame (shown at tMS) and returns what it
// observed: pile changes while playing, the stop, the counts and the end
// of the round after it, the next round.
func (p *Pipeline) Process(frame gocv.Mat, tMS int64) ([]referee.Observation, error) {
	if frame.Empty() || frame.Channels() != 3 {
		return nil, fmt.Errorf("pipeline: want a BGR frame, got %dx%d with %d channels", frame.Cols(), frame.Rows(), frame.Channels())
	}
	if p.view == nil {
		v, err := newTableView(p.cal, frame.Cols(), frame.Rows())
		if err != nil {
			return nil, err
		}
		p.view = v
	}
	p.frame++
	p.t.Frames++
	p.n = p.cfg.frameCounts(cmp.Or(p.cfg.FPS, p.rate.add(tMS)))
	t0 := time.Now()
	p.frameStart = t0
	p.view.rectifyCentre(frame, &p.rect)
	t1 := time.Now()
	p.t.Rectify += t1.Sub(t0)
	var quads []Quad
	if p.phase != referee.PhaseCounting || p.bg.Empty() {
		// After the stop the centre is full of backs, which take the
		// finder longest, and no pile is followed until the next round
		// (which drops them): only the count reads the centre then. The
		// empty table tells when the next round starts; without one
		// (centreEmpty), the finds do.
		quads = p.findCards()
	}
	t2 := time.Now()
	p.t.Detect += t2.Sub(t1)
	found := p.matchFinds(quads)
	todo, crops, err := p.quietCrops(frame, found)
	if err != nil {
		return nil, err
	}
	p.centreMotion = 1
	if !p.prev.Empty() {
		p.centreMotion = motionFraction(p.rect, p.prev, p.view.inner) // hands in the seats move all the time
	}
	p.rect.CopyTo(&p.prev)
	p.updateBare()
	t3 := time.Now()
	p.t.Motion += t3.Sub(t2)
	if len(crops) > 0 {
		preds, err := p.pred.Classify(crops)
		if err != nil {
			return nil, fmt.Errorf("pipeline: %w", err)
		}
		p.t.Crops += len(crops)
		for i, m := range todo {
			m.pl.reading, m.pl.hasRead = preds[i], true
			p.vote(m.pl)
		}
	}
	t4 := time.Now()
	p.t.Classify += t4.Sub(t3)
	if err := p.watchSeats(frame); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	obs := p.commitPolicy(frame, tMS)
	p.t.Track += time.Since(t4)
	if p.hook != nil {
		return p.hook.Observe(frame, tMS, p.phase == referee.PhasePlaying, obs)
	}
	return obs, nil
}

// UnsurePiles lists the referee's piles (by ID) whose top card the
// latest reading read unsure (under model.SureAt): what the camera shows
// there is not known until a reading is sure again.
func (p *Pipeline) UnsurePiles() []int {
	var ids []int
	if p.phase != referee.PhasePlaying {
		return nil
	}
	for _, pl := range p.piles {
		if pl.id > 0 && pl.unsure {
			ids = append(ids, pl.id)
		}
	}
	slices.Sort(ids)
	return ids
}
