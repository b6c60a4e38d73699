package vision

import (
	"cmp"
	"fmt"
	"image"
	"math"
	"slices"
	"time"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
)

// PipelineConfig tunes the tracker. Start from DefaultPipelineConfig.
//
// Its waits and windows are times, counted in frames at the rate of the
// frames given to Process (FPS, or measured from their times; see
// frames). The defaults were tuned at 30 fps, on rendered rounds, and the
// frame counts in their stories are at that rate.
type PipelineConfig struct {
	// FPS is the rate of the frames given to Process. 0 (the default):
	// measured from the frames' times over the last seconds, which is
	// the rate the pipeline sees even when a live source drops frames.
	FPS float64
	// Stable is how long consecutive quiet frames must agree on a pile's
	// reading before it is committed, when none of them was sure (see
	// SureStable). 3 frames, 100 ms: a fingertip on a blue 8 read it as a 9 at 51% and
	// then 89% in two quiet frames, the 9 was committed, and the 8 read
	// again when the hand lifted was called a foul (2 players seed 24).
	Stable time.Duration
	// SureStable is how long quiet frames suffice when one of them read
	// the candidate at least OpenConfidence sure: a sure reading of the
	// card a pile expects commits in the first quiet frame after a hand
	// lifts (a foul still needs SurpriseStable).
	SureStable time.Duration
	// MinConfidence is the least face confidence a reading needs.
	MinConfidence float64
	// OpenConfidence and OpenStable guard opening a pile (a false opening
	// is a false violation): its first reading commits after Stable quiet
	// frames only when one of them was at least OpenConfidence sure, else
	// after OpenStable. A card in a seat counts as a face only at
	// OpenConfidence too (readSeats).
	OpenConfidence float64
	OpenStable     time.Duration
	// MaxMotion is the largest fraction of a pile's box that may change
	// between frames for it to count as quiet (not under a moving hand).
	MaxMotion float64
	// StopWait is how long the centre must show face-down cards (the
	// count after a stop) before counting starts.
	StopWait time.Duration
	// A new pile whose first card read is not a 1 breaks C6 only if no 1
	// can lie under it: with StrictStarts (the default) it is reported as
	// is when that card was first read at most BareWindow after its spot
	// was last seen as bare table, no 1 or lower card (of any colour:
	// colours are misread) was glimpsed there however unsurely, and the
	// bare-table map sees the card itself (it may not see a green card on
	// green felt, so it may not have seen a 1 either). A 1 laid, seen by
	// the others and answered with a 2 takes longer than BareWindow: in
	// the simulated rounds (seeds 11-30, 2 to 12 players) a legal pile
	// whose 1 the camera missed (hands over it the whole time) was read
	// 26 frames or more after its spot was bare, a bad start 4-25 frames
	// (mostly 8-13); with fouls that wait, as legal plays do, to see the
	// top they land on (session 20; 75 rounds: seeds 11-18 and 21-30), a
	// legal pile 24 frames or more (12 players seed 27: at 24, a legal 2
	// called a bad start), a bad start 4-18 and once 24: 22 keeps two
	// frames from the legal side (22 frames at 30 fps: 733 ms). A hand over the spot is not bare table even when it
	// has the table's colour (see tableTexture). Otherwise the pile is
	// reported as its 1 with the rest inferred, since a legal play must
	// never be reported as a violation.
	StrictStarts bool
	BareWindow   time.Duration
	// SurpriseStable is how long quiet frames (one of them at least
	// OpenConfidence sure) a reading needs when it is not the expected
	// next card (the next number of the pile's colour, or a 1 on a new
	// pile): a jump, a foul or a bad start. A card still settling, a
	// glimpse of a neighbour, or a 10 read as a 1 for a frame or two must
	// not become a violation. A foul covered by the next card 0.6 s later
	// is in plain view 7-11 frames and read 4-5 times, so 4 (6 to 5 and
	// then 5 to 4 each gained a foul or two with their rule, on 80 rounds,
	// seeds 11-30, and on 20 fresh ones, seeds 31-35, with no false call;
	// 4 frames at 30 fps: 133 ms).
	// The reading must also hold from crops moved along the card
	// (readsAlike), which is what keeps a sure misread from a call.
	SurpriseStable time.Duration
	// FitPiles finds the centre's cards against the calibration's empty
	// table (FindCardsOnTable: closes outlines on yellow-on-beige edges,
	// fits cards into heaps of touching or overlapping piles). Off by
	// default: it finds many more pile tops, but the extra finds still
	// cause a few false violations in the simulated rounds.
	FitPiles bool
	// Attribute watches the seats too (see Attributor): pile commits name
	// who laid the card, and a stack seen empty calls the stop. Off by
	// default: a false stop would end a round early.
	Attribute bool
	// Settings of the match the referee is told.
	Settings referee.Settings
}

// DefaultPipelineConfig suits 15-60 fps. Its times are the frame counts
// it was tuned with at 30 fps (3, 1, 5, 8, 22 and 4 frames), and come out
// as those counts at 30 fps.
func DefaultPipelineConfig() PipelineConfig {
	return PipelineConfig{Stable: 100 * time.Millisecond, SureStable: 33 * time.Millisecond, MinConfidence: 0.5, OpenConfidence: 0.9,
		OpenStable: 167 * time.Millisecond, MaxMotion: 0.01, StopWait: 267 * time.Millisecond, StrictStarts: true,
		BareWindow: 733 * time.Millisecond, SurpriseStable: 133 * time.Millisecond}
}

// Timing is the time spent in each stage, summed over frames.
type Timing struct {
	Frames                                   int
	Rectify, Motion, Detect, Classify, Track time.Duration
	Crops                                    int // crops classified
}

// pile is a tracked centre pile.
type pile struct {
	id       int     // referee pile ID, 0 until its first card is committed
	x, y     float64 // centre, in centre work pixels
	quad     Quad    // last outline, centre work pixels
	seen     int     // frame index last seen
	sig      []float32
	reading  model.Prediction
	hasRead  bool
	cand     referee.Face
	candN    int
	candConf float64 // the surest reading of cand so far (raw: model.Prediction.RawFaceConfidence)
	// candSure is the surest calibrated reading of cand so far
	// (FaceConfidence): a foul needs one at least model.SureAt.
	candSure float64
	// unsure: the pile's latest face reading was under model.SureAt (its
	// top shows as "?" until a reading is sure again).
	unsure bool
	// candWhole: a reading of cand at least OpenConfidence sure came from
	// an outline not cut short (see cutShort); only such a reading lets
	// SureStable commit.
	candWhole bool
	// area and whole are the outline's area and the outline itself when
	// it last read the committed card.
	area      float64
	whole     Quad
	committed referee.Face
	back      bool // the last reading was a card back
	settled   int  // frame index when the current candidate was first seen quiet
	bareAge   int  // frames from its spot last seen bare to its first find
	born      int  // frame index when it was first found
	// lowestSeen is the lowest number of any reading, however unsure,
	// before the first commit (0: none; 1: a 1 was glimpsed).
	lowestSeen int
	// firstRead is the frame of each face's first sure reading, while
	// the pile has no committed card.
	firstRead map[referee.Face]int
	// sureReads counts, per face, the readings at least OpenConfidence
	// sure while the pile has no committed card.
	sureReads map[referee.Face]int
	// laterSeen counts, by number, the frames since the last commit that
	// read a later card of the pile's colour (above its top): cards laid
	// one on another faster than the camera could see them lie still.
	laterSeen [11]int
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
	attr      *Attributor // nil unless cfg.Attribute
}

// NewPipeline makes a pipeline for frames of the calibrated camera.
func NewPipeline(cal *calibration.File, pred model.Predictor, mcfg model.Config, cfg PipelineConfig) (*Pipeline, error) {
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
	p.attr.Close()
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
	// Match finds to piles by position.
	var found []pileFind
	reach := 0.45 * calibration.CardWMM * WorkPxPerMM
	// Finds that never became a pile are forgotten once out of sight.
	p.piles = slices.DeleteFunc(p.piles, func(pl *pile) bool { return pl.id == 0 && p.frame-pl.seen > forgetFrames })
	for _, q := range quads {
		x, y := q.Centre()
		// A known pile first: a find on a hand or arm nearby must not
		// take a real pile's place.
		var best *pile
		for _, known := range []bool{true, false} {
			bd := reach
			for _, pl := range p.piles {
				if d := math.Hypot(pl.x-x, pl.y-y); (pl.id > 0) == known && d < bd {
					best, bd = pl, d
				}
			}
			if best != nil {
				break
			}
		}
		if best == nil {
			// Only a still find may start a pile: a card lies still, a
			// hand or an arm (often card-shaped at this scale) moves.
			r := boundsOf(q).Inset(-2).Intersect(image.Rectangle{Max: image.Pt(p.rect.Cols(), p.rect.Rows())})
			if p.prev.Empty() || r.Dx() <= 4 || r.Dy() <= 4 || motionFraction(p.rect, p.prev, r) > p.cfg.MaxMotion {
				continue
			}
			if !p.differsFromTable(q) {
				continue
			}
			// Still now, as the quiet test below would find: its reading
			// may count from this frame (seen as if in the last one too).
			best = &pile{x: x, y: y, settled: -1, born: p.frame, seen: p.frame - 1, bareAge: p.bare.bareAge(q, p.frame)}
			p.piles = append(p.piles, best)
		}
		best.x, best.y, best.quad = 0.7*best.x+0.3*x, 0.7*best.y+0.3*y, q
		found = append(found, pileFind{best, q})
	}
	if p.phase == referee.PhasePlaying {
		found = append(found, p.heldPiles(found)...)
	}
	// Quiet piles: little change since the last frame over their box.
	var todo []pileFind
	var crops []model.Crop
	for _, m := range found {
		r := boundsOf(m.q).Inset(-2).Intersect(image.Rectangle{Max: image.Pt(p.rect.Cols(), p.rect.Rows())})
		quiet := !p.prev.Empty() && r.Dx() > 4 && r.Dy() > 4 && motionFraction(p.rect, p.prev, r) <= p.cfg.MaxMotion
		// Found in one of the last two frames: a pile at the edge of being
		// found (an arm's shadow touching it) is missed every other frame,
		// and a hand over it in the frame missed shows as motion now.
		seenBefore := m.pl.seen >= p.frame-2
		m.pl.seen = p.frame
		if !quiet || !seenBefore {
			m.pl.candN = 0
			continue
		}
		sig := signature(p.rect, m.q)
		if m.pl.hasRead && sigDiff(sig, m.pl.sig) < 0.03 {
			p.vote(m.pl)
			continue
		}
		m.pl.sig = sig
		c, err := cropFromCamera(frame, p.cameraQuad(m.q), p.cal.WhiteBalance, p.mcfg.Width, p.mcfg.Height)
		if err != nil {
			return nil, err
		}
		crops = append(crops, c)
		todo = append(todo, m)
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
	obs := p.decide(frame, tMS)
	p.t.Track += time.Since(t4)
	if p.attr != nil {
		return p.attr.Observe(frame, tMS, p.phase == referee.PhasePlaying, obs)
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

// pileFind is a pile found in the current frame, with its outline.
type pileFind struct {
	pl *pile
	q  Quad
}

// holdContrast is the least borderContrast of a pile's card that the
// finder lost and heldPiles keeps: clear cards beside an arm measured
// 0.92-1.0, cards a hand or fingers lay over 0.43-0.90 (4 players seed 3).
const holdContrast = 0.9

// holdDiffers is the least tableDiffers of a pile's card that heldPiles
// keeps.
const holdDiffers = 0.8

// heldPiles finds again, near their last outlines, the committed piles
// the finder lost this frame whose card still stands out all round from
// what lies beside it (see clearOutline) and differs from the empty table
// under it: a card whose outline joins an arm's lying beside it. Piles
// found are left alone, and so is a spot a find already covers. Until the
// empty table is relit (the first frames) it finds none.
func (p *Pipeline) heldPiles(found []pileFind) []pileFind {
	w, h := p.rect.Cols(), p.rect.Rows()
	if p.bareBg.Cols() != w || p.bareBg.Rows() != h || !p.bareBg.IsContinuous() || !p.rect.IsContinuous() {
		return nil
	}
	img, err1 := p.rect.DataPtrUint8()
	table, err2 := p.bareBg.DataPtrUint8()
	if err1 != nil || err2 != nil {
		return nil
	}
	var held []pileFind
	for _, pl := range p.piles {
		if pl.id == 0 {
			continue
		}
		if slices.ContainsFunc(found, func(f pileFind) bool { return f.pl == pl || f.q.Contains(pl.x, pl.y) }) {
			continue
		}
		q, c := clearOutline(img, w, h, pl.quad, fgThreshold)
		if c < holdContrast || tableDiffers(img, table, w, h, q, fgThreshold) < holdDiffers {
			continue
		}
		pl.quad = q
		held = append(held, pileFind{pl, q})
	}
	return held
}

// findCards finds the cards in the rectified centre, against the empty
// table where the calibration has it.
func (p *Pipeline) findCards() []Quad {
	if p.bg.Empty() {
		return p.inCentre(FindCards(p.rect, cardParams()))
	}
	r := p.view.centre.Intersect(image.Rectangle{Max: image.Pt(p.bg.Cols(), p.bg.Rows())})
	if r.Dx() != p.rect.Cols() || r.Dy() != p.rect.Rows() {
		return p.inCentre(FindCards(p.rect, cardParams()))
	}
	if p.bareBg.Cols() == p.rect.Cols() && p.bareBg.Rows() == p.rect.Rows() {
		// The empty table under the current light: against the calibration's,
		// a drift of light shows a checked cloth's squares beside a card as
		// foreground, and the outline fitted there takes in cloth and half
		// the card.
		// Where it is plain, a card its colour also stands out by hue.
		var plain *gocv.Mat
		if p.bareTex != nil {
			plain = &p.bareTex.plain
		}
		return p.findCardsAgainst(p.bareBg, plain)
	}
	bgc := p.bg.Region(r) // until the first relight
	defer bgc.Close()
	return p.findCardsAgainst(bgc, nil)
}

// findCardsAgainst finds the cards in the rectified centre against the
// empty table's picture table, of the same size, and where plain (or
// nil) marks it plain, by hue too (see findCardsOnPlainTable).
func (p *Pipeline) findCardsAgainst(table gocv.Mat, plain *gocv.Mat) []Quad {
	return p.inCentre(findCardsOnPlainTable(p.rect, table, plain, cardParams(), p.cfg.FitPiles))
}

// inCentre keeps the cards whose centre lies in the calibrated centre
// area: the margin round it is there to see those whole, not to take a
// seat's card or a hand beyond it for a pile.
func (p *Pipeline) inCentre(qs []Quad) []Quad {
	return slices.DeleteFunc(qs, func(q Quad) bool {
		x, y := q.Centre()
		return !image.Pt(int(x), int(y)).In(p.view.inner)
	})
}

// vote counts the pile's current reading towards a commit.
//
// Its thresholds (MinConfidence, OpenConfidence) compare the network's raw
// confidence, which they were tuned on; whether a reading is sure enough
// for a foul is the calibrated confidence's business (candSure, SureAt).
func (p *Pipeline) vote(pl *pile) {
	r := pl.reading
	f := r.Face()
	conf := float64(r.RawFaceConfidence())
	pl.back = r.IsBack()
	if !pl.back {
		pl.unsure = r.Unsure()
	}
	if !pl.back && pl.id == 0 && conf >= 0.2 && (pl.lowestSeen == 0 || f.Number < pl.lowestSeen) {
		pl.lowestSeen = f.Number
	}
	if pl.back || conf < p.cfg.MinConfidence {
		pl.candN = 0
		return
	}
	if pl.id == 0 {
		if pl.firstRead == nil {
			pl.firstRead = map[referee.Face]int{}
		}
		if _, ok := pl.firstRead[f]; !ok {
			pl.firstRead[f] = p.frame
		}
		if conf >= p.cfg.OpenConfidence && r.FaceConfidence() >= model.SureAt { // a bad first card is a foul (C6): only on a sure reading
			if pl.sureReads == nil {
				pl.sureReads = map[referee.Face]int{}
			}
			pl.sureReads[f]++
		}
	}
	next := pl.id > 0 && isNext(pl.committed, f)
	if pl.id > 0 && f.Colour == pl.committed.Colour && f.Number > pl.committed.Number {
		pl.laterSeen[f.Number]++
	}
	if pl.id > 0 && !next && f != pl.committed && !p.cardSized(pl.quad) {
		// A surprise read from an outline smaller than a card (a
		// neighbour's arm cut it) or as big as two (a merge with a
		// neighbour) reads a part of a card: no foul is called on that.
		pl.candN = 0
		return
	}
	if f == pl.committed {
		pl.area, pl.whole = quadArea(pl.quad), pl.quad
	}
	if f == pl.cand && pl.candN > 0 {
		pl.candN++
		pl.candConf = math.Max(pl.candConf, conf)
		pl.candSure = math.Max(pl.candSure, float64(r.FaceConfidence()))
	} else {
		pl.cand, pl.candN, pl.candConf, pl.candWhole = f, 1, conf, false
		pl.candSure = float64(r.FaceConfidence())
	}
	if conf >= p.cfg.OpenConfidence && !p.cutShort(pl) {
		pl.candWhole = true
	}
}

// readsSure reports whether the card in q (camera pixels) reads f at least
// OpenConfidence sure. A sure reading from an outline cut short is taken
// at once only if the pile's last whole outline reads it too: a card laid
// square on a ragged pile shrinks the outline and reads alike from both, a
// cut crop's misread does not (the whole outline shows both ends of the
// card).
func (p *Pipeline) readsSure(frame gocv.Mat, q Quad, f referee.Face) bool {
	c, err := cropFromCamera(frame, q, p.cal.WhiteBalance, p.mcfg.Width, p.mcfg.Height)
	if err != nil {
		return false
	}
	preds, err := p.pred.Classify([]model.Crop{c})
	if err != nil {
		return false
	}
	p.t.Crops++
	r := preds[0]
	return !r.IsBack() && r.Face() == f && float64(r.RawFaceConfidence()) >= p.cfg.OpenConfidence
}

// showsFace reports whether the pile's last reading is a face read at
// least OpenConfidence sure.
func (p *Pipeline) showsFace(pl *pile) bool {
	return !pl.back && float64(pl.reading.RawFaceConfidence()) >= p.cfg.OpenConfidence
}

// cutShortArea is the share of its last outline's area below which a
// pile's outline is cut short: a fingertip or a neighbour's hand at one end
// of the card cut it to 0.74-0.80 of its area, and the crop, missing most
// of the numeral turned at that end, read an 8 as a 9, 89-95% sure (2
// players seed 24, 8 players seed 35). A new card's outline is often cut
// by the hand leaving it too (refusing every cut outline's quick commit put
// the settle delay's p95 at 4 frames), hence readsSure rather than a
// refusal.
const cutShortArea = 0.85

// cutShort reports whether the pile's outline is much smaller than when it
// last read its committed card.
func (p *Pipeline) cutShort(pl *pile) bool {
	return pl.area > 0 && quadArea(pl.quad) < cutShortArea*pl.area
}

// decide turns the piles' votes into observations.
func (p *Pipeline) decide(frame gocv.Mat, tMS int64) []referee.Observation {
	var obs []referee.Observation
	switch p.phase {
	case referee.PhasePlaying:
		var adopted []*pile // finds that turned out to be lost piles (see lostPileUnder)
		defer func() {
			p.piles = slices.DeleteFunc(p.piles, func(pl *pile) bool { return slices.Contains(adopted, pl) })
		}()
		// The stop: no pile shows its face any more (the piles were
		// turned over and spread to be sorted by owner), and the centre
		// is still. Stillness is required: hands over the piles also hide
		// every face, and during play cards carried over the centre read
		// as backs (backs fanned close are not found as cards, so backs
		// cannot be required). Counting must wait for the spreading to
		// end anyway. A face shows only if it reads as sure as a pile
		// needs to open: a spread back read as a face half sure (a blue
		// 1, 0.3-0.57, over a turned pile, 4 players seed 15) must not
		// hide the stop for good.
		// A face shows only where it is the pile's own card or its next:
		// a surprise read when the piles have just been turned over and
		// spread (a back misread as a face) must not hide the stop.
		visible, found := 0, 0
		for _, pl := range p.piles {
			if pl.id == 0 || pl.seen != p.frame {
				continue
			}
			found++
			if f := pl.reading.Face(); p.showsFace(pl) && (f == pl.committed || isNext(pl.committed, f)) {
				visible++
			}
		}
		// Most open piles gone from one frame to the next (turned over and
		// spread for the count, 8 players seed 22: 1 of 17 still found, a
		// spread red back with white rings over it read as a red 1 1.0
		// sure), no surprise is committed: what is read there now is a
		// back misread (a C7 called on no play). Hands over half the piles
		// only delay a foul's call.
		turning := p.openPiles() >= 2 && 2*found < p.openPiles()
		if p.openPiles() >= 2 && visible == 0 && p.centreMotion < stillCentre {
			p.backFrames++
		} else {
			p.backFrames = 0
		}
		if p.seatsDown >= seatChecks {
			// Over before two piles were opened (see watchSeats).
			p.backFrames = p.n.stop
		}
		if p.backFrames >= p.n.stop {
			p.phase = referee.PhaseCounting
			p.counted = false
			return nil
		}
		for _, pl := range p.piles {
			need := p.n.stable
			if p.n.sure > 0 && pl.candConf >= p.cfg.OpenConfidence && pl.candN >= p.n.sure && pl.candN < need &&
				(pl.candWhole || pl.seen == p.frame && p.readsSure(frame, p.cameraQuad(pl.whole), pl.cand)) {
				need = min(need, p.n.sure)
			}
			if pl.candN < need || pl.cand == pl.committed {
				continue
			}
			if pl.id == 0 && pl.candConf < p.cfg.OpenConfidence && pl.candN < p.n.open {
				continue
			}
			if !p.expected(pl) && (turning || pl.candN < p.n.surprise || pl.candConf < p.cfg.OpenConfidence) {
				continue // look twice before calling a foul or a jump, and not while the piles are turned over
			}
			if !p.expected(pl) && (pl.candSure < model.SureAt || pl.reading.Unsure()) {
				// No foul on an unsure reading (C6, C7, C8 are called on
				// what the camera is sure of): a card read under
				// model.SureAt waits for a sure reading, in this frame,
				// and is left out if none comes.
				continue
			}
			if !p.expected(pl) && pl.seen == p.frame && !p.readsAlike(frame, p.cameraQuad(pl.quad), pl.cand) {
				// An outline that takes in a strip of the card below reads
				// wrong (see readsAlike): look again. (A candidate becomes
				// sure only in a frame its pile was found in, so the check
				// sees the card it is about.)
				pl.candN = 0
				continue
			}
			f := pl.cand
			if lost := p.lostPileUnder(pl, f); lost != nil {
				// Not a new pile: the card lies on a pile the tracker
				// lost, which takes this find's place.
				lost.x, lost.y, lost.quad, lost.seen = pl.x, pl.y, pl.quad, pl.seen
				lost.sig, lost.reading, lost.hasRead, lost.back = pl.sig, pl.reading, pl.hasRead, pl.back
				lost.cand, lost.candN, lost.candConf, lost.candWhole = pl.cand, pl.candN, pl.candConf, pl.candWhole
				lost.candSure, lost.unsure = pl.candSure, pl.unsure
				lost.laterSeen = [11]int{}
				adopted = append(adopted, pl)
				pl = lost
				if f != pl.committed {
					obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
				}
			} else if pl.id == 0 {
				p.nextID++
				pl.id = p.nextID
				first := f
				readAfter := p.frame - pl.born
				if at, ok := pl.firstRead[f]; ok {
					readAfter = at - pl.born
				}
				glimpsedBelow := pl.lowestSeen > 0 && pl.lowestSeen < f.Number // a 1 or a lower card
				strict := p.cfg.StrictStarts && !glimpsedBelow && p.bareSeesCard(pl) && pl.bareAge <= p.n.bare && pl.bareAge+readAfter <= p.n.bare
				if debugStart != nil && f.Number != 1 {
					debugStart(pl.id, f, pl.bareAge, p.frame-pl.born, readAfter, pl.lowestSeen)
				}
				if f.Number != 1 && !strict {
					// The 1 under it was missed (see StrictStarts), unless
					// a bad start was read there before this card covered it.
					first = referee.Face{Colour: f.Colour, Number: 1}
					if g, ok := p.badFirst(pl, f); ok {
						first = g
					}
				}
				obs = append(obs, referee.Observation{Kind: referee.ObsPileNew, TimeMS: tMS, Pile: pl.id, Card: &first, By: "camera"})
				if first != f {
					obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
				}
			} else {
				if seen, ok := p.seenBefore(pl); ok {
					// A legal card of the pile was read before this foul
					// covered it: it was played first (a 10 then a card on
					// it breaks C8, not C7).
					obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &seen, By: "camera"})
				}
				obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
			}
			if pl.committed == (referee.Face{}) {
				p.noteCardArea(quadArea(pl.quad))
			}
			pl.committed = f
			pl.area, pl.whole = quadArea(pl.quad), pl.quad
			pl.laterSeen = [11]int{}
		}
	case referee.PhaseCounting:
		if p.counted {
			// The next round: the centre is empty again.
			if p.centreEmpty() {
				p.piles, p.nextID, p.backFrames = nil, 0, 0
				p.seatsDown, p.rowsSeen = 0, false
				p.bare = bareMap{}
				p.phase = referee.PhasePlaying
				obs = append(obs, referee.Observation{Kind: referee.ObsRound, TimeMS: tMS, By: "camera"})
			}
			return obs
		}
		if p.counting == nil {
			if p.stillFor() < 3 {
				return nil
			}
			p.counting = p.newCountJob(frame, tMS)
		}
		// Steps of the count while the frame, with another step as long
		// as the last, stays within countBudget; at least one, so that it
		// ends, and all that is left once it has taken countFrames, so
		// that it ends in time on a loaded machine too (a video may end
		// a few seconds after the stop).
		p.counting.frames++
		last := p.counting.frames >= countFrames
		for {
			s0 := time.Now()
			if p.counting.step(p) || !last && time.Since(p.frameStart)+time.Since(s0) >= countBudget {
				break
			}
		}
		if !p.counting.done() {
			return nil
		}
		j := p.counting
		obs = p.countObservations(j.centre, j.stack, j.tMS)
		j.Close()
		p.counting, p.counted = nil, true
	}
	return obs
}

// lostPileUnder returns the committed pile that a find never committed,
// pl, about to commit f, lies on: one of f's colour, not above it, not found
// in this frame, whose centre is less than lostPileReach from pl's. Cards
// of two piles do not lie that close; outlines that take in a touching
// neighbour draw a pile's tracked centre aside, past the reach of the
// finds of its own card (12 players seed 18: 13 px), and that card,
// found where it truly lies, started a second pile on it, whose first card
// (a 5) was called a bad start (C6).
func (p *Pipeline) lostPileUnder(pl *pile, f referee.Face) *pile {
	if pl.id != 0 {
		return nil
	}
	var best *pile
	bd := lostPileReach * calibration.CardWMM * WorkPxPerMM
	for _, q := range p.piles {
		if q.id == 0 || q.seen == p.frame || q.committed.Colour != f.Colour || q.committed.Number > f.Number {
			continue
		}
		if d := math.Hypot(q.x-pl.x, q.y-pl.y); d < bd {
			best, bd = q, d
		}
	}
	return best
}

// lostPileReach is how close, in card widths, a find's centre must lie to
// a lost pile's for lostPileUnder.
const lostPileReach = 0.6

// badFirst finds a bad start (C6) under a pile's first committed card f:
// a lower card of f's colour, not a 1, read sure at least badFirstReads
// times (too few for a surprise: f covered it first), first read within
// BareWindow of the spot being bare, on a spot where the bare map sees
// cards and where nothing lower was glimpsed. A legal pile's 1, 2, ...
// cannot reach that number so soon after bare table, so the card read
// there was the pile's first.
func (p *Pipeline) badFirst(pl *pile, f referee.Face) (referee.Face, bool) {
	if !p.cfg.StrictStarts || pl.bareAge > p.n.bare || !p.bareSeesCard(pl) {
		return referee.Face{}, false
	}
	var best referee.Face
	for g, n := range pl.sureReads {
		at, ok := pl.firstRead[g]
		if !ok || n < badFirstReads || g.Colour != f.Colour || g.Number <= 1 || g.Number >= f.Number || pl.bareAge+at-pl.born > p.n.bare {
			continue
		}
		if best.Number == 0 || g.Number < best.Number {
			best = g
		}
	}
	if best.Number == 0 || pl.lowestSeen < best.Number {
		return referee.Face{}, false
	}
	return best, true
}

// bareSeesCard reports whether the bare map sees the pile's card now. A
// card it takes for table (a green card on green felt) could have lain
// there unseen before, so no bad start is called on it.
func (p *Pipeline) bareSeesCard(pl *pile) bool { return p.bare.bareNow(pl.quad, p.frame) < 0.2 }

// badFirstReads is how many sure readings badFirst needs of a covered
// bad start: one fewer than a surprise in plain view needs.
const badFirstReads = 3

// debugStart, when set (by diagnostic tests), hears of every new pile
// whose first card read is not a 1.
var debugStart func(pile int, first referee.Face, bareAge, sinceBorn, readAfter, lowestSeen int)

// cameraQuad maps q, in centre work pixels, to camera pixels.
func (p *Pipeline) cameraQuad(q Quad) Quad {
	var cam Quad
	for i, c := range q {
		cam[i] = p.view.centreToCamera(float64(c.X), float64(c.Y))
	}
	return cam
}

// alikeShift is how far, as a fraction of the card's length, readsAlike
// moves the crop towards either end.
const alikeShift = 0.06

// readsAlike reports whether the card in q (camera pixels) still reads f
// from crops moved a little towards either end of the card. A pile's
// outline can take in a strip of the card below it, where the top card
// lies offset: the crop then loses the end of the numeral turned at the
// far end, and the network can read it sure and wrong (12 players seed 18:
// a red 5 read red 2 at 0.96-1.0 for 7 frames, a foul called on a legal
// play; moved 5% the other way it reads red 5 at 1.0). A card truly there
// reads the same from both. Only a surprise (a foul, a jump, a bad start)
// pays for the two extra crops.
func (p *Pipeline) readsAlike(frame gocv.Mat, q Quad, f referee.Face) bool {
	o := OrderCorners(q)
	// o[0]->o[3] runs along a long side.
	dx, dy := float64(o[3].X-o[0].X)*alikeShift, float64(o[3].Y-o[0].Y)*alikeShift
	var crops []model.Crop
	for _, sign := range []float64{-1, 1} {
		var m Quad
		for i, c := range o {
			m[i] = image.Pt(int(math.Round(float64(c.X)+sign*dx)), int(math.Round(float64(c.Y)+sign*dy)))
		}
		c, err := cropFromCamera(frame, m, p.cal.WhiteBalance, p.mcfg.Width, p.mcfg.Height)
		if err != nil {
			return false
		}
		crops = append(crops, c)
	}
	preds, err := p.pred.Classify(crops)
	if err != nil {
		return false
	}
	p.t.Crops += len(crops)
	for _, r := range preds {
		if r.IsBack() || r.Face() != f {
			return false
		}
	}
	return true
}

// seenBefore returns the highest card of the pile's colour read at least
// nextSeenFrames times since its last commit, when its candidate is a foul
// (another colour, or not higher): that card was laid before the foul.
func (p *Pipeline) seenBefore(pl *pile) (referee.Face, bool) {
	top, f := pl.committed, pl.cand
	if p.expected(pl) || (f.Colour == top.Colour && f.Number > top.Number) {
		return referee.Face{}, false
	}
	for n := 10; n > top.Number; n-- {
		if pl.laterSeen[n] >= nextSeenFrames {
			return referee.Face{Colour: top.Colour, Number: n}, true
		}
	}
	return referee.Face{}, false
}

// nextSeenFrames is how many readings of a later card of a pile (not
// necessarily in a row) show that it was played, when a foul is committed
// over it before it was ever stable.
const nextSeenFrames = 2

// forgetFrames is how long a find that was never read as a card is kept
// out of sight (a card under a hand comes back within it).
const forgetFrames = 30

// relightFrames is how often the bare map's empty table is brought to
// the current light (light drifts over seconds).
const relightFrames = 15

// countBudget is how long a frame may take, from the start of Process,
// before the count after a stop leaves its next steps to the next frames
// (each frame does one step at least). A frame every 33 ms at 30 fps, and
// the spectators' view must not stall while the scores are counted.
const countBudget = 20 * time.Millisecond

// countFrames is how many frames the count may take at most: 3 s at 30
// fps, well within the time a table needs before the next round.
const countFrames = 90

// stillCentre is the most of the centre that may change between two
// frames for it to count as still (no hands moving over it).
const stillCentre = 0.003

// A surprise reading counts only from a find whose outline is between
// these multiples of a lone card's area on this table (cardArea): in a simulated 12-player round, piles' outlines (their cards
// a few millimetres apart) measured 0.8-1.15 of it, a find cut by a
// neighbour's arm 0.6, and two touching piles are two.
const minCardArea, maxCardArea = 0.7, 1.8

// noteCardArea records the outline area of a pile's first card, a lone
// card on this table (the rectified card size depends on the camera).
func (p *Pipeline) noteCardArea(a float64) {
	p.cardAreas = append(p.cardAreas, a)
	if len(p.cardAreas) > 15 {
		p.cardAreas = p.cardAreas[1:]
	}
	s := slices.Clone(p.cardAreas)
	slices.Sort(s)
	p.cardArea = s[len(s)/2]
}

// cardSized reports whether q's area is that of one card or one pile, as
// far as the lone cards seen so far tell (true before the first).
func (p *Pipeline) cardSized(q Quad) bool {
	if p.cardArea == 0 {
		return true
	}
	a := quadArea(q)
	return a >= minCardArea*p.cardArea && a <= maxCardArea*p.cardArea
}

// expected reports whether the pile's candidate is the card a legal play
// puts on it next.
func (p *Pipeline) expected(pl *pile) bool {
	f := pl.cand
	if pl.id == 0 {
		return f.Number == 1
	}
	return isNext(pl.committed, f)
}

// isNext reports whether f is the card that legally follows top on its
// pile (C7): referee.CheckPlace without the violation it builds, since
// this runs for every pile every frame.
func isNext(top, f referee.Face) bool {
	return f.Colour == top.Colour && f.Number == top.Number+1
}

// stillFor counts the frames on from the stop's StopWait of still ones and
// reports 3 once three more have passed: the count waits that long.
func (p *Pipeline) stillFor() int {
	if p.backFrames++; p.backFrames < p.n.stop+3 {
		return 0
	}
	return 3
}

// bareCell is the side, in centre work pixels, of a cell of a bareMap.
const bareCell = 4

// bareMap records, cell by cell over the centre, the last frame in which
// the cell showed the empty table.
type bareMap struct {
	cols, rows int
	last       []int // frame index, 0 = never
}

// mark records that the cells where fg (a mask, 255 = not table) is
// mostly clear were bare at frame.
func (b *bareMap) mark(fg gocv.Mat, frame int) {
	cols, rows := fg.Cols()/bareCell, fg.Rows()/bareCell
	if cols < 1 || rows < 1 {
		return
	}
	if b.cols != cols || b.rows != rows {
		*b = bareMap{cols: cols, rows: rows, last: make([]int, cols*rows)}
	}
	small := gocv.NewMat()
	defer small.Close()
	sub := fg.Region(image.Rect(0, 0, cols*bareCell, rows*bareCell))
	defer sub.Close()
	gocv.Resize(sub, &small, image.Pt(cols, rows), 0, 0, gocv.InterpolationArea)
	px, err := small.DataPtrUint8() // one cgo call, not one a cell
	if err != nil || len(px) < cols*rows {
		return
	}
	for i, v := range px[:cols*rows] {
		if v < 26 {
			b.last[i] = frame
		}
	}
}

// neverBare is the bare age of a spot never seen bare.
const neverBare = math.MaxInt32

// bareAge is how many frames before frame most cells inside q (centre work
// pixels) were last bare: the median of the cells' ages, neverBare when
// most were never bare.
func (b *bareMap) bareAge(q Quad, frame int) int {
	var ages []int
	for _, l := range b.inside(q) {
		age := neverBare
		if l > 0 {
			age = frame - l
		}
		ages = append(ages, age)
	}
	if len(ages) == 0 {
		return neverBare
	}
	slices.Sort(ages)
	return ages[len(ages)/2]
}

// bareNow is the fraction of the cells inside q (centre work pixels) seen
// as bare table in frame.
func (b *bareMap) bareNow(q Quad, frame int) float64 {
	in := b.inside(q)
	if len(in) == 0 {
		return 1
	}
	bare := 0
	for _, l := range in {
		if l == frame {
			bare++
		}
	}
	return float64(bare) / float64(len(in))
}

// inside returns the frames when the cells whose centres lie inside q
// (centre work pixels) were last bare, 0 for never.
func (b *bareMap) inside(q Quad) []int {
	var out []int
	for y := range b.rows {
		for x := range b.cols {
			if q.Contains(float64(x*bareCell)+bareCell/2, float64(y*bareCell)+bareCell/2) {
				out = append(out, b.last[y*b.cols+x])
			}
		}
	}
	return out
}

// newPileDiffers is the least share of a find whose colour (its hue and
// saturation, not its brightness) must differ from the empty table's for
// it to start a pile: a card's does over most of it, while an outline that
// takes in a stretch of table beside a card, where a shade or the light's
// edge made the table differ in brightness only, does over half of it at
// most.
const newPileDiffers = 0.6

// differsFromTable reports whether find q's colour differs from the
// empty table's over at least newPileDiffers of it.
func (p *Pipeline) differsFromTable(q Quad) bool {
	w, h := p.rect.Cols(), p.rect.Rows()
	if p.bareBg.Cols() != w || p.bareBg.Rows() != h || !p.bareBg.IsContinuous() || !p.rect.IsContinuous() {
		return true
	}
	img, err1 := p.rect.DataPtrUint8()
	table, err2 := p.bareBg.DataPtrUint8()
	if err1 != nil || err2 != nil {
		return true
	}
	return chromaDiffers(img, table, w, h, q) >= newPileDiffers
}

// updateBare marks the bare spots of the current centre image.
func (p *Pipeline) updateBare() {
	if p.bg.Empty() || p.view == nil {
		return
	}
	r := p.view.centre.Intersect(image.Rectangle{Max: image.Pt(p.bg.Cols(), p.bg.Rows())})
	if r.Dx() != p.rect.Cols() || r.Dy() != p.rect.Rows() {
		return
	}
	// The light drifts from the calibration's: against the empty table as
	// it was, a bare spot can differ by more than the threshold and never
	// count as bare (a bad start then goes uncalled).
	if p.bareLight == nil {
		bgc := p.bg.Region(r)
		l, err := newRelighter(bgc) // copies it
		bgc.Close()
		if err != nil {
			return
		}
		l.local = true
		p.bareLight, p.bareLit = l, -relightFrames
	}
	if p.frame-p.bareLit >= relightFrames && p.bareLight.relight(p.rect, &p.bareBg) == nil {
		p.bareLit = p.frame
		if p.bareTex != nil {
			p.bareTex.Close()
		}
		p.bareTex = newTableTexture(p.bareBg)
	}
	if p.bareBg.Empty() {
		return
	}
	m := bareMask(p.rect, p.bareBg, p.bareTex)
	defer m.Close()
	p.bare.mark(m, p.frame)
}

// centreEmpty reports whether the centre shows the empty table.
func (p *Pipeline) centreEmpty() bool {
	if p.bg.Empty() {
		for _, pl := range p.piles {
			if pl.seen == p.frame {
				return false
			}
		}
		return true
	}
	r := p.view.centre.Intersect(image.Rectangle{Max: image.Pt(p.bg.Cols(), p.bg.Rows())})
	if r.Dx() != p.rect.Cols() || r.Dy() != p.rect.Rows() {
		return false
	}
	bgc := p.bg.Region(r)
	defer bgc.Close()
	m := foreground(p.rect, bgc)
	defer m.Close()
	in := m.Region(p.view.inner) // the seats' cards may reach into the margin
	defer in.Close()
	return float64(gocv.CountNonZero(in)) < 0.01*float64(p.view.inner.Dx()*p.view.inner.Dy())
}

func boundsOf(q Quad) image.Rectangle {
	r := image.Rectangle{Min: q[0], Max: q[0]}
	for _, c := range q[1:] {
		r = r.Union(image.Rectangle{Min: c, Max: c.Add(image.Pt(1, 1))})
	}
	return r
}

// signature is a small grey thumbnail of the card in q, to tell whether it
// changed since it was last read.
func signature(img gocv.Mat, q Quad) []float32 {
	w := WarpCard(img, OrderCorners(q), 6, 9)
	defer w.Close()
	b, err := w.DataPtrUint8()
	if err != nil {
		return nil
	}
	out := make([]float32, len(b))
	for i, v := range b {
		out[i] = float32(v) / 255
	}
	return out
}

func sigDiff(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 1
	}
	var s float64
	for i := range a {
		s += math.Abs(float64(a[i] - b[i]))
	}
	return s / float64(len(a))
}

// quadArea is the area enclosed by q.
func quadArea(q Quad) float64 {
	pg := make(calibration.Polygon, len(q))
	for i, c := range q {
		pg[i] = calibration.Point{X: float64(c.X), Y: float64(c.Y)}
	}
	return pg.Area()
}
