package vision

// Attribution, part 1: the Attributor, its configuration, and the frames
// and observations it is fed.
//
// Live attribution: which player laid each card the pipeline commits to a
// centre pile, and the stop when a player's Ligretto stack is seen empty
// (C13). Each player plays only their own deck, so the card laid is theirs
// and counts +1 for them at the end (C14): attributing the plays as they
// happen gives a live, unofficial score. The count after the stop stays
// the official one.

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"maps"
	"math"
	"slices"
	"time"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
)

// AttributorConfig tunes the Attributor. Start from DefaultAttributorConfig.
type AttributorConfig struct {
	// MaxMotion is the largest fraction of where a seat's cards lie that
	// may change between frames for the seat to count as quiet;
	// QuietFrames quiet frames in a row let it be read (not under a
	// moving hand).
	MaxMotion   float64
	QuietFrames int
	// ChangeCards is how much of the seat, in card areas, must differ from
	// what was last read for it to be read again.
	ChangeCards float64
	// MinConfidence is the least face confidence of a seat card's reading;
	// less sure readings are no card for the matching.
	MinConfidence float64
	// A seat's loss of a face counts for a pile commit of that face at t
	// when the seat last showed it no later than t - FlightMS (the card
	// flew, landed, and the hand left the pile before the commit) and was
	// seen without it no earlier than t - WindowMS.
	FlightMS int64
	WindowMS int64
	// HoldMS is how long a commit may wait for busy seats to be read again
	// before it is passed on, attributed or not. Later observations wait
	// behind it, so that the referee gets them in order.
	HoldMS int64
	// StackStop emits the stop (C13) when a spot of a seat's deal (its
	// Ligretto stack or a row card) shows bare table for BareMS: a row gap
	// is refilled at once (C11), so only an empty stack stays bare.
	StackStop bool
	BareMS    int64
	// ArmOnly lets the arm alone name the player when no seat was seen
	// losing the card, provided every other player's arm was seen on the
	// piles they surely laid cards on (an arm the camera cannot tell from
	// the table, a sleeve of the table's colour, leaves another player's
	// passing arm alone on the pile).
	ArmOnly bool
}

// DefaultAttributorConfig suits 25-60 fps.
func DefaultAttributorConfig() AttributorConfig {
	return AttributorConfig{MaxMotion: 0.002, QuietFrames: 2, ChangeCards: 0.15, MinConfidence: 0.6,
		FlightMS: 400, WindowMS: 1500, HoldMS: 1500, StackStop: true, BareMS: 800, ArmOnly: true}
}

// Attribution says who laid a committed card.
type Attribution struct {
	TimeMS int64        `json:"t_ms"` // when the pipeline committed it
	Pile   int          `json:"pile"`
	Card   referee.Face `json:"card"`
	// Player is set, and Sure, when the evidence names one player.
	Player string `json:"player,omitempty"`
	Sure   bool   `json:"sure"`
	// Evidence says what a sure attribution rests on (Evidence*).
	Evidence string `json:"evidence,omitempty"`
	// Candidates are the seats that lost the face around TimeMS, and when
	// unsure those that may have without being seen to.
	Candidates []string `json:"candidates,omitempty"`
	// Arms counts, per seat, the frames shortly before TimeMS in which
	// what lay on the pile reached off the table on that seat's side: an
	// arm.
	Arms map[string]int `json:"arms,omitempty"`
	// SeenMS and GoneMS are the seat reads between which the card left.
	SeenMS    int64 `json:"seen_ms,omitempty"`
	GoneMS    int64 `json:"gone_ms,omitempty"`
	DecidedMS int64 `json:"decided_ms"` // the frame time when it was decided
}

// The evidence a sure attribution rests on.
const (
	EvidenceDeal    = "deal"     // the card left the player's stack or row, and no other seat's
	EvidenceDealArm = "deal+arm" // it left their stack or row and another seat's, and their arm alone reached the pile
	EvidenceHand    = "hand"     // it left their hand's pile, and no other seat's cards changed meanwhile
	EvidenceHandArm = "hand+arm" // it left their hand's pile, and their arm alone reached the pile
	EvidenceArm     = "arm"      // their arm alone reached the pile; no seat was seen losing the card
)

// AttributorTiming is the time the Attributor spent, summed over frames.
type AttributorTiming struct {
	Frames int
	// Watch is all of it; Read and Classify the part spent reading seats.
	Watch, Read, Classify time.Duration
	Reads, Crops          int
}

const (
	// lowPxPerMM is the scale of the table image the seats and arms are
	// watched in, every frame; seats are read at WorkPxPerMM.
	lowPxPerMM = 0.25
	hiToLow    = lowPxPerMM / WorkPxPerMM
	// histMS is how long the arms' history is kept.
	histMS = armWindowMS + 200
	// armWindowMS is how long before a commit an arm on the pile counts:
	// the hand that laid the card left the pile just before the pile
	// settled and was committed; an arm seen earlier may have been
	// another player's, passing.
	armWindowMS = 1000
	// minArmFrames is the least number of frames an arm must be seen
	// reaching the pile in: a hand lays a card over several frames.
	minArmFrames = 4
	// idleMS is how long before its flight a card may have left its seat:
	// a seat unchanged that long before a commit did not lay it.
	idleMS = 2000
	// cardReach is how far, in read image pixels, beyond the cards seen
	// a seat is read for new ones: a card's length (the hand's pile
	// beside the row).
	cardReach = 44 // calibration.CardHMM * WorkPxPerMM
)

// Attributor watches the players' seats beside the pipeline. Feed it every
// frame with Observe, with the pipeline's observations of that frame; it
// passes them on with the player named on the pile commits it can
// attribute, and adds a stop when a stack is seen empty. It is not safe
// for concurrent use. Close it to free its images.
type Attributor struct {
	cfg     AttributorConfig
	cal     *calibration.File
	pred    model.Predictor
	mcfg    model.Config
	rowSize int
	seats   []*seatWatch

	// The whole table at lowPxPerMM, every frame, looked up in the camera
	// frame through a map made once (a perspective warp costs several
	// times as much).
	lowMap   gocv.Mat               // CV_16SC2: the camera pixel of each low pixel
	noMap    gocv.Mat               // empty
	toLow    calibration.Homography // camera -> low table image
	lowScale float64                // low pixels per table image pixel
	lowSize  image.Point
	low      gocv.Mat
	lowPrev  gocv.Mat // the last frame's
	moved    gocv.Mat // 255 where low moved since the last frame
	bgLow    gocv.Mat // the empty table, or empty
	notTable []byte   // this frame's: 255 where low is not the empty table
	fg       gocv.Mat // scratch
	rim      []int8   // per low pixel on the image's border: 1 + the seat whose zone it is in, else 0
	hist     []armFrame
	seen     []int32 // scratch for armScores
	stack    []int
	locate   func(pile int) (calibration.Point, bool) // a pile's centre in camera pixels

	playing, stopped bool
	queue            []pending
	atts             []Attribution
	live             map[string]int
	armTried         map[string]int // sure attributions by a seat's loss, per player
	armSeen          map[string]int // those on which the player's arm was seen
	t                AttributorTiming
}

// NewAttributor makes an attributor for frames of the calibrated camera,
// reading the seats' cards with pred.
func NewAttributor(cal *calibration.File, pred model.Predictor, cfg AttributorConfig) (*Attributor, error) {
	mcfg := pred.Config()
	if err := cal.Validate(); err != nil {
		return nil, err
	}
	if cfg.QuietFrames < 1 || cfg.HoldMS < 0 || cfg.WindowMS <= 0 || cfg.FlightMS < 0 || cfg.MaxMotion < 0 || cfg.BareMS < 0 {
		return nil, fmt.Errorf("attributor: config %+v out of range", cfg)
	}
	a := &Attributor{cfg: cfg, cal: cal, pred: pred, mcfg: mcfg, rowSize: referee.RowSize(len(cal.Seats)), live: map[string]int{},
		armTried: map[string]int{}, armSeen: map[string]int{},
		lowMap: gocv.NewMat(), noMap: gocv.NewMat(), low: gocv.NewMat(), lowPrev: gocv.NewMat(), moved: gocv.NewMat(),
		bgLow: gocv.NewMat(), fg: gocv.NewMat()}
	if err := a.setup(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// setup builds the low table view and each seat's part of it.
func (a *Attributor) setup() error {
	a.lowScale = lowPxPerMM / a.cal.Scale()
	a.toLow = a.cal.H().Scale(a.lowScale)
	a.lowSize = image.Pt(int(math.Round(float64(a.cal.TableW)*a.lowScale)), int(math.Round(float64(a.cal.TableH)*a.lowScale)))
	fromLow := a.toLow.Inverse()
	buf := make([]byte, 0, 4*a.lowSize.X*a.lowSize.Y)
	clamp := func(v float64, n int) uint16 { return uint16(int16(max(0, min(float64(n-1), math.Round(v))))) }
	for y := range a.lowSize.Y {
		for x := range a.lowSize.X {
			c := fromLow.Apply(calibration.Point{X: float64(x), Y: float64(y)})
			buf = binary.LittleEndian.AppendUint16(buf, clamp(c.X, a.cal.ImageW))
			buf = binary.LittleEndian.AppendUint16(buf, clamp(c.Y, a.cal.ImageH))
		}
	}
	m, err := gocv.NewMatFromBytes(a.lowSize.Y, a.lowSize.X, gocv.MatTypeCV16SC2, buf)
	if err != nil {
		return fmt.Errorf("attributor: %w", err)
	}
	a.lowMap.Close()
	a.lowMap = m
	if len(a.cal.Background) > 0 {
		bg, err := gocv.IMDecode(a.cal.Background, gocv.IMReadColor)
		if err != nil || bg.Empty() {
			bg.Close()
			return fmt.Errorf("%w: the background image does not decode", calibration.ErrMalformed)
		}
		gocv.Resize(bg, &a.bgLow, a.lowSize, 0, 0, gocv.InterpolationArea)
		bg.Close()
	}
	W, H := a.lowSize.X, a.lowSize.Y
	a.rim = make([]int8, W*H)
	for y := range H {
		for x := range W {
			if x > 1 && y > 1 && x < W-2 && y < H-2 {
				continue
			}
			p := calibration.Point{X: (float64(x) + 0.5) / a.lowScale, Y: (float64(y) + 0.5) / a.lowScale}
			for i, st := range a.cal.Seats {
				if st.Zone.Contains(p) {
					a.rim[y*W+x] = int8(i + 1)
					break
				}
			}
		}
	}
	hiScale := WorkPxPerMM / a.cal.Scale()
	for _, st := range a.cal.Seats {
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range st.Zone {
			x0, y0 = math.Min(x0, p.X*a.lowScale), math.Min(y0, p.Y*a.lowScale)
			x1, y1 = math.Max(x1, p.X*a.lowScale), math.Max(y1, p.Y*a.lowScale)
		}
		r := image.Rect(int(x0), int(y0), int(math.Ceil(x1)), int(math.Ceil(y1))).Intersect(image.Rectangle{Max: a.lowSize})
		if r.Dx() < 10 || r.Dy() < 10 {
			return fmt.Errorf("%w: the zone of %s is too small", calibration.ErrZone, st.Player)
		}
		// The read image covers the same table at twice the scale.
		h := a.cal.H().Scale(hiScale).Translate(-float64(r.Min.X)/hiToLow, -float64(r.Min.Y)/hiToLow)
		s := &seatWatch{player: st.Player, low: r, size: image.Pt(int(float64(r.Dx())/hiToLow), int(float64(r.Dy())/hiToLow)),
			fromCam: h, toCam: h.Inverse(), mask: gocv.NewMatWithSize(r.Dy(), r.Dx(), gocv.MatTypeCV8U),
			active: gocv.NewMat(), img: gocv.NewMat(), read: gocv.NewMat(),
			hi: gocv.NewMat(), diff: gocv.NewMat(), readAt: -1, changedAt: -1}
		a.seats = append(a.seats, s)
		var pts []image.Point
		for _, p := range st.Zone {
			pts = append(pts, image.Pt(int(math.Round(p.X*a.lowScale))-r.Min.X, int(math.Round(p.Y*a.lowScale))-r.Min.Y))
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		gocv.FillPoly(&s.mask, pv, color.RGBA{255, 255, 255, 0})
		pv.Close()
		s.maskN = gocv.CountNonZero(s.mask)
		s.mask.CopyTo(&s.active)
		s.activeN = s.maskN
	}
	return nil
}

// Close frees the attributor's images.
func (a *Attributor) Close() {
	if a == nil {
		return
	}
	for _, m := range []*gocv.Mat{&a.lowMap, &a.noMap, &a.low, &a.lowPrev, &a.moved, &a.bgLow, &a.fg} {
		m.Close()
	}
	for _, s := range a.seats {
		for _, m := range []*gocv.Mat{&s.mask, &s.active, &s.img, &s.read, &s.hi, &s.diff} {
			m.Close()
		}
	}
	a.seats = nil
}

// Attributions returns this round's decided attributions, in the order
// they were decided.
func (a *Attributor) Attributions() []Attribution { return slices.Clone(a.atts) }

// Live returns this round's live, unofficial score: per player, the cards
// surely attributed to them.
func (a *Attributor) Live() map[string]int { return maps.Clone(a.live) }

// Timing returns the time spent so far.
func (a *Attributor) Timing() AttributorTiming { return a.t }

// Observe looks at one BGR frame (shown at tMS) with the observations the
// pipeline made of it; playing says whether the pipeline is tracking play
// (a round between its start and the count). It returns the observations
// to pass on: the pipeline's, with Player set on the pile commits it
// attributed surely, some held back for up to HoldMS while it waits for a
// seat, and its own stop when a stack is seen empty (the pipeline's stop
// at the count is then dropped: the round was stopped once).
func (a *Attributor) Observe(frame gocv.Mat, tMS int64, playing bool, obs []referee.Observation) ([]referee.Observation, error) {
	if frame.Empty() || frame.Channels() != 3 {
		return nil, fmt.Errorf("attributor: want a BGR frame, got %dx%d with %d channels", frame.Cols(), frame.Rows(), frame.Channels())
	}
	if frame.Cols() != a.cal.ImageW || frame.Rows() != a.cal.ImageH {
		return nil, fmt.Errorf("%w: frames are %dx%d, the calibration was made on %dx%d", ErrCalibration, frame.Cols(), frame.Rows(), a.cal.ImageW, a.cal.ImageH)
	}
	a.t.Frames++
	if playing && !a.playing {
		a.newRound()
	}
	a.playing = playing
	if playing && !a.stopped {
		t0 := time.Now()
		// Nearest is enough to see what moved or is not table.
		gocv.Remap(frame, &a.low, &a.lowMap, &a.noMap, gocv.InterpolationNearestNeighbor, gocv.BorderReplicate, color0)
		first := a.lowPrev.Empty()
		if !first {
			gocv.AbsDiff(a.low, a.lowPrev, &a.moved)
			gocv.CvtColor(a.moved, &a.moved, gocv.ColorBGRToGray)
			gocv.Threshold(a.moved, &a.moved, 30, 255, gocv.ThresholdBinary)
		}
		a.low.CopyTo(&a.lowPrev)
		a.watchArms(tMS)
		for _, s := range a.seats {
			if err := a.watch(s, frame, tMS, first); err != nil {
				return nil, err
			}
		}
		a.t.Watch += time.Since(t0)
	}
	return a.route(obs, tMS, playing), nil
}

// route queues the pipeline's observations of the frame at tMS with the
// attributor's own, decides what it can, and returns what is ready to pass
// on, in order.
func (a *Attributor) route(obs []referee.Observation, tMS int64, playing bool) []referee.Observation {
	for _, o := range obs {
		switch {
		case o.Kind == referee.ObsStop && a.stopped:
			continue // stopped already, by the stack seen empty
		case (o.Kind == referee.ObsPileNew || o.Kind == referee.ObsPileShows) && o.Card != nil:
			// A 1 the pipeline inferred under a new pile's first read is
			// attributed too: a seat that lost it laid it, and its loss
			// must not be taken for another deck's 1 later.
			p := pending{o: o, need: playing && !a.stopped}
			if p.need {
				p.arms = a.armScores(o.Pile, o.TimeMS) // the frames up to its commit are all in
			}
			a.queue = append(a.queue, p)
		default:
			a.attributeQueued(tMS, true) // counts and rounds come after every commit
			a.queue = append(a.queue, pending{o: o})
		}
	}
	if a.cfg.StackStop && playing && !a.stopped {
		if s := a.bareSeat(tMS); s != nil {
			a.attributeQueued(tMS, true) // the cards laid before the call count (C13)
			a.queue = append(a.queue, pending{o: referee.Observation{Kind: referee.ObsStop, TimeMS: tMS, Player: s.player, By: "camera"}})
			a.stopped = true
		}
	}
	a.attributeQueued(tMS, !playing)
	var out []referee.Observation
	for len(a.queue) > 0 && (!a.queue[0].need || a.queue[0].done) {
		out = append(out, a.queue[0].o)
		a.queue = a.queue[1:]
	}
	return out
}

func (a *Attributor) newRound() {
	a.stopped, a.atts, a.live, a.hist, a.notTable = false, nil, map[string]int{}, nil, nil
	for _, s := range a.seats {
		s.mask.CopyTo(&s.active)
		s.activeN = s.maskN
		s.cards, s.readAt, s.quiet, s.dirty, s.dealt, s.dealtDone, s.losses, s.box = nil, -1, 0, true, nil, false, nil, image.Rectangle{}
		s.changedAt = -1
	}
}

// Attributor returns the pipeline's attributor, or nil when
// PipelineConfig.Attribute is off.
func (p *Pipeline) Attributor() *Attributor {
	a, _ := p.hook.(*Attributor)
	return a
}

// attachAttributor gives the pipeline an attributor when its config asks
// for one, with the pipeline's piles to follow arms to.
func (p *Pipeline) attachAttributor() error {
	if !p.cfg.Attribute {
		return nil
	}
	a, err := NewAttributor(p.cal, p.pred, DefaultAttributorConfig())
	if err != nil {
		return err
	}
	a.locate = p.pileCentre
	p.hook = a
	return nil
}
