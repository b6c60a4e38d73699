package vision

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
	"ligretto/vision/find"
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

// armFrame is what of the low table image was not bare table in one frame:
// cards, hands and arms.
type armFrame struct {
	t int64
	m []byte // 255 where not bare table
}

// seatWatch is what the Attributor knows of one seat.
type seatWatch struct {
	player  string
	low     image.Rectangle        // the zone's bounds in the low table image
	size    image.Point            // the read image's size (WorkPxPerMM)
	fromCam calibration.Homography // camera -> read image
	toCam   calibration.Homography // read image -> camera
	box     image.Rectangle        // where the seat's cards lay this round, read image pixels
	mask    gocv.Mat               // the zone in the seat's low image (255 inside)
	maskN   int
	// active is where the seat's cards lay this round (the zone until the
	// first read): a neighbour's arm over a corner of the zone does not
	// keep the seat from being read.
	active  gocv.Mat
	activeN int
	img     gocv.Mat // this frame's low seat image
	read    gocv.Mat // the one last read
	hi      gocv.Mat // the read image
	diff    gocv.Mat // scratch

	cards     []seatCard // as last read, quads in read image pixels
	readAt    int64      // when it was last read; -1 before the first read
	quiet     int        // quiet frames in a row
	dirty     bool       // something moved or changed since the last read
	dealt     []dealtSpot
	dealtDone bool
	losses    []loss
	changedAt int64 // the last read whose faces differed from the one before
}

// seatCard is a face-up card seen in a seat.
type seatCard struct {
	q    Quad // read image pixels
	sig  []float32
	face referee.Face
	ok   bool  // read with confidence
	seen int64 // when it was last seen
}

// dealtSpot is where a card of the deal lay: the Ligretto stack or a row card.
type dealtSpot struct {
	r         image.Rectangle // low seat image pixels, inset
	bareSince int64           // -1 when not bare
}

// loss is a face that a seat showed at one read and no longer at the next.
type loss struct {
	face   referee.Face
	seenMS int64 // the last read that showed it
	goneMS int64 // the read that no longer did
	dealt  bool  // it lay in the stack or the row, not on the hand's pile
	used   bool
}

type pending struct {
	o    referee.Observation
	need bool           // a commit to attribute
	arms map[string]int // see Attribution.Arms
	done bool
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
			a.decideAll(tMS, true) // counts and rounds come after every commit
			a.queue = append(a.queue, pending{o: o})
		}
	}
	if a.cfg.StackStop && playing && !a.stopped {
		if s := a.bareSeat(tMS); s != nil {
			a.decideAll(tMS, true) // the cards laid before the call count (C13)
			a.queue = append(a.queue, pending{o: referee.Observation{Kind: referee.ObsStop, TimeMS: tMS, Player: s.player, By: "camera"}})
			a.stopped = true
		}
	}
	a.decideAll(tMS, !playing)
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

// watch looks at a seat in this frame's low table image, and reads it when
// it is quiet and changed.
func (a *Attributor) watch(s *seatWatch, frame gocv.Mat, tMS int64, first bool) error {
	sub := a.low.Region(s.low)
	sub.CopyTo(&s.img)
	sub.Close()
	moving := first
	if !first {
		m := a.moved.Region(s.low)
		gocv.BitwiseAnd(m, s.active, &s.diff)
		m.Close()
		moving = float64(gocv.CountNonZero(s.diff)) > math.Max(2, a.cfg.MaxMotion*float64(s.activeN))
	}
	a.checkBare(s, tMS)
	if moving {
		s.quiet, s.dirty = 0, true
		return nil
	}
	if s.quiet++; s.quiet < a.cfg.QuietFrames {
		return nil
	}
	cardPx := calibration.CardWMM * calibration.CardHMM * lowPxPerMM * lowPxPerMM
	if s.readAt >= 0 && s.changed(s.img, s.read, s.mask) < a.cfg.ChangeCards*cardPx {
		s.dirty = false // it looks as it did when last read
		return nil
	}
	return a.readSeat(s, frame, tMS)
}

// changed counts the pixels within mask that differ clearly between x and y.
func (s *seatWatch) changed(x, y, mask gocv.Mat) float64 {
	gocv.AbsDiff(x, y, &s.diff)
	gocv.CvtColor(s.diff, &s.diff, gocv.ColorBGRToGray)
	gocv.Threshold(s.diff, &s.diff, 30, 255, gocv.ThresholdBinary)
	gocv.BitwiseAnd(s.diff, mask, &s.diff)
	return float64(gocv.CountNonZero(s.diff))
}

// readSeat finds the seat's face-up cards, reads those that changed, and
// notes the faces it no longer shows.
func (a *Attributor) readSeat(s *seatWatch, frame gocv.Mat, tMS int64) error {
	t0 := time.Now()
	a.t.Reads++
	// Once the seat's cards were found, only where they lie and a card
	// round it is read: not the rest of the zone (a marker in its corner
	// costs much to find no card in).
	win := image.Rectangle{Max: s.size}
	if s.readAt >= 0 && !s.box.Empty() {
		win = s.box.Inset(-cardReach).Intersect(win)
	}
	h := homMat(s.fromCam.Translate(-float64(win.Min.X), -float64(win.Min.Y)))
	gocv.WarpPerspectiveWithParams(frame, &s.hi, h, win.Size(), gocv.InterpolationLinear, gocv.BorderReplicate, color0)
	h.Close()
	// Edges only: fitting cards into the blob of a seat's neighbouring
	// cards (find.Cards with Fit) finds cards between them that are not there.
	found := find.Cards(s.hi, cardOptions())
	reach := 0.3 * calibration.CardWMM * WorkPxPerMM
	var next []seatCard
	var crops []model.Crop
	var todo []int
	for _, wq := range found {
		sig := signature(s.hi, wq)
		var q Quad
		for i, p := range wq {
			q[i] = p.Add(win.Min)
		}
		x, y := q.Centre()
		xi, yi := int(x*hiToLow), int(y*hiToLow)
		if xi < 0 || yi < 0 || xi >= s.mask.Cols() || yi >= s.mask.Rows() || s.mask.GetUCharAt(yi, xi) == 0 {
			continue // another seat's card, or one on its way to the centre
		}
		c := seatCard{q: q, sig: sig, seen: tMS}
		if old, ok := s.same(c, reach); ok {
			c.face, c.ok = old.face, old.ok
		} else {
			var cam Quad
			for i, p := range q {
				cp := s.toCam.Apply(calibration.Point{X: float64(p.X), Y: float64(p.Y)})
				cam[i] = image.Pt(int(math.Round(cp.X)), int(math.Round(cp.Y)))
			}
			crop, err := cropFromCamera(frame, cam, a.cal.WhiteBalance, a.mcfg.Width, a.mcfg.Height)
			if err != nil {
				return fmt.Errorf("attributor: %w", err)
			}
			crops = append(crops, crop)
			todo = append(todo, len(next))
		}
		next = append(next, c)
	}
	// A card last read that is neither under a card found now nor gone to
	// bare table lies under a hand or an arm: it is still there as far as
	// anyone can tell.
	for _, old := range s.cards {
		x, y := old.q.Centre()
		under := false
		for _, c := range next {
			if c.q.Contains(x, y) {
				under = true
				break
			}
		}
		if !under && !a.bareAt(s, old.q, 0.9) {
			next = append(next, old)
		}
	}
	t1 := time.Now()
	a.t.Read += t1.Sub(t0)
	if len(crops) > 0 {
		preds, err := a.pred.Classify(crops)
		if err != nil {
			return fmt.Errorf("attributor: %w", err)
		}
		a.t.Crops += len(crops)
		for i, k := range todo {
			p := preds[i]
			next[k].face, next[k].ok = p.Face(), !p.IsBack() && float64(p.RawFaceConfidence()) >= a.cfg.MinConfidence
		}
	}
	a.t.Classify += time.Since(t1)
	if s.readAt >= 0 {
		a.noteLosses(s, next, tMS)
	}
	// The deal: the first read that shows the stack and the whole row and
	// nothing else (C3, C4): the hand's pile, once there, lies in line
	// with them and could not be told apart.
	if !s.dealtDone && len(next) == a.rowSize+1 {
		s.dealtDone = true
		for _, c := range next {
			if r := s.lowRect(c.q, 1); c.ok && r.Dx() > 2 && r.Dy() > 2 && !a.bareAt(s, c.q, 0.5) {
				s.dealt = append(s.dealt, dealtSpot{r: r, bareSince: -1})
			}
		}
	}
	// Watch for motion where the cards lie from now on.
	if s.readAt < 0 {
		s.active.SetTo(gocv.NewScalar(0, 0, 0, 0))
	}
	for _, c := range next {
		s.box = s.box.Union(boundsOf(c.q))
		sub := s.active.Region(s.lowRect(c.q, 3))
		sub.SetTo(gocv.NewScalar(255, 0, 0, 0))
		sub.Close()
	}
	gocv.BitwiseAnd(s.active, s.mask, &s.active)
	s.activeN = max(1, gocv.CountNonZero(s.active))
	s.cards, s.readAt, s.dirty = next, tMS, false
	s.img.CopyTo(&s.read)
	// Forget losses too old to match any commit still to come.
	keep := s.losses[:0]
	for _, l := range s.losses {
		if tMS-l.goneMS <= a.cfg.WindowMS+a.cfg.HoldMS {
			keep = append(keep, l)
		}
	}
	s.losses = keep
	return nil
}

// noteLosses compares the faces the seat showed with those it shows now,
// as multisets: a card moved within the seat (a row gap refilled from the
// stack, C11) is no loss.
func (a *Attributor) noteLosses(s *seatWatch, next []seatCard, tMS int64) {
	before, after := faceCounts(s.cards), faceCounts(next)
	if !maps.Equal(before, after) {
		s.changedAt = tMS
	}
	for f, n := range before {
		for k := range n - after[f] {
			// The k-th card that showed f: its place says whether it lay
			// in the deal's spots (the stack or the row: only a play takes
			// a card from there) or on the hand's pile, where counting off
			// covers a card too.
			var old seatCard
			for _, c := range s.cards {
				if c.ok && c.face == f {
					old = c
					if k--; k < 0 {
						break
					}
				}
			}
			s.losses = append(s.losses, loss{face: f, seenMS: old.seen, goneMS: tMS, dealt: s.inDeal(old.q)})
		}
	}
	for f, n := range after {
		// A face seen again soon after it was lost was covered a moment
		// (a hand lying still on it), not played.
		for range n - before[f] {
			for i := range s.losses {
				if l := &s.losses[i]; !l.used && l.face == f && tMS-l.goneMS <= a.cfg.WindowMS {
					l.used = true
					break
				}
			}
		}
	}
}

// same returns the card last read where c lies, if it looks the same:
// its reading stands.
func (s *seatWatch) same(c seatCard, reach float64) (seatCard, bool) {
	x, y := c.q.Centre()
	for _, old := range s.cards {
		ox, oy := old.q.Centre()
		if math.Hypot(ox-x, oy-y) < reach && sigDiff(c.sig, old.sig) < 0.03 {
			return old, true
		}
	}
	return seatCard{}, false
}

func faceCounts(cs []seatCard) map[referee.Face]int {
	m := map[referee.Face]int{}
	for _, c := range cs {
		if c.ok {
			m[c.face]++
		}
	}
	return m
}

// lowRect is the bounding box of q (read image pixels) in the low seat
// image, shrunk by inset pixels on each side (grown when negative).
func (s *seatWatch) lowRect(q Quad, inset int) image.Rectangle {
	b := boundsOf(q)
	r := image.Rect(int(float64(b.Min.X)*hiToLow), int(float64(b.Min.Y)*hiToLow), int(math.Ceil(float64(b.Max.X)*hiToLow)), int(math.Ceil(float64(b.Max.Y)*hiToLow)))
	return r.Inset(inset).Intersect(image.Rectangle{Max: s.low.Size()})
}

// inDeal reports whether the card q lay in a spot of the deal, or on the
// first card of a C18 cascade from one.
func (s *seatWatch) inDeal(q Quad) bool {
	x, y := q.Centre()
	p := image.Pt(int(x*hiToLow), int(y*hiToLow))
	for _, d := range s.dealt {
		if p.In(d.r.Inset(-2)) {
			return true
		}
	}
	return false
}

// bareAt reports whether at least frac of the card q's place shows the
// empty table (false without a background).
func (a *Attributor) bareAt(s *seatWatch, q Quad, frac float64) bool {
	r := s.lowRect(q, 2)
	return a.notTable != nil && r.Dx() > 2 && r.Dy() > 2 && a.bareFraction(r.Add(s.low.Min)) >= frac
}

// checkBare notes, for each spot of the seat's deal, since when it shows
// the empty table.
func (a *Attributor) checkBare(s *seatWatch, tMS int64) {
	if !a.cfg.StackStop || a.notTable == nil {
		return
	}
	for i := range s.dealt {
		d := &s.dealt[i]
		if a.bareFraction(d.r.Add(s.low.Min)) >= 0.95 {
			if d.bareSince < 0 {
				d.bareSince = tMS
			}
		} else {
			d.bareSince = -1
		}
	}
}

// bareFraction is the fraction of r (low table image) where this frame
// matches the empty table.
func (a *Attributor) bareFraction(r image.Rectangle) float64 {
	r = r.Intersect(image.Rectangle{Max: a.lowSize})
	if r.Empty() {
		return 0
	}
	bare := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for _, v := range a.notTable[y*a.lowSize.X+r.Min.X : y*a.lowSize.X+r.Max.X] {
			if v == 0 {
				bare++
			}
		}
	}
	return float64(bare) / float64(r.Dx()*r.Dy())
}

// maxChannel is the largest of a BGR image's channels, pixel by pixel.
func maxChannel(img gocv.Mat) gocv.Mat {
	chans := gocv.Split(img)
	for _, c := range chans[1:] {
		gocv.Max(chans[0], c, &chans[0])
		c.Close()
	}
	return chans[0]
}

// bareSeat returns the seat one of whose dealt spots has been bare for
// BareMS, or nil. When several seats' are, none is named: that is no
// stack running out but a table cleared.
func (a *Attributor) bareSeat(tMS int64) *seatWatch {
	var found *seatWatch
	for _, s := range a.seats {
		for _, d := range s.dealt {
			if d.bareSince >= 0 && tMS-d.bareSince >= a.cfg.BareMS {
				if found != nil && found != s {
					return nil
				}
				found = s
			}
		}
	}
	return found
}

// watchArms notes what of the table is not bare table in this frame
// (in every colour channel: a yellow card on a beige table differs in
// blue): cards, hands and arms.
func (a *Attributor) watchArms(tMS int64) {
	if a.bgLow.Empty() {
		return
	}
	gocv.AbsDiff(a.low, a.bgLow, &a.fg)
	m := maxChannel(a.fg)
	defer m.Close()
	gocv.Threshold(m, &m, fgThreshold, 255, gocv.ThresholdBinary)
	b, err := m.DataPtrUint8()
	if err != nil {
		return
	}
	var buf []byte
	for len(a.hist) > 0 && tMS-a.hist[0].t > histMS {
		buf = a.hist[0].m[:0] // reuse the oldest
		a.hist = a.hist[1:]
	}
	a.hist = append(a.hist, armFrame{t: tMS, m: append(buf, b...)})
	a.notTable = a.hist[len(a.hist)-1].m
}

// armScores counts, per seat, the frames shortly before t in which what
// lay on the pile (a hand) reached off the table on the seat's side (its
// arm).
func (a *Attributor) armScores(pile int, t int64) map[string]int {
	if a.locate == nil || len(a.hist) == 0 {
		return nil
	}
	cp, ok := a.locate(pile)
	if !ok {
		return nil
	}
	pp := a.toLow.Apply(cp)
	W, H := a.lowSize.X, a.lowSize.Y
	px, py := int(pp.X), int(pp.Y)
	if px < 0 || py < 0 || px >= W || py >= H {
		return nil
	}
	out := map[string]int{}
	if len(a.seen) != W*H {
		a.seen = make([]int32, W*H)
	}
	seen, stack := a.seen, a.stack[:0]
	for k, h := range a.hist {
		if h.t < t-armWindowMS || h.t > t {
			continue
		}
		mark := int32(k + 1)
		var reached uint16 // seats, as bits
		stack = append(stack[:0], py*W+px)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[i] == mark || h.m[i] == 0 {
				continue
			}
			seen[i] = mark
			if o := a.rim[i]; o > 0 {
				reached |= 1 << (o - 1)
			}
			x, y := i%W, i/W
			if x > 0 {
				stack = append(stack, i-1)
			}
			if x < W-1 {
				stack = append(stack, i+1)
			}
			if y > 0 {
				stack = append(stack, i-W)
			}
			if y < H-1 {
				stack = append(stack, i+W)
			}
		}
		for si, s := range a.seats {
			if reached&(1<<si) != 0 {
				out[s.player]++
			}
		}
	}
	clear(seen)
	a.stack = stack
	return out
}

// clearArm names the seat whose arm alone reached the pile, in at least
// minArmFrames frames, or "".
func clearArm(arms map[string]int) string {
	who := ""
	for name, n := range arms {
		if n <= 0 {
			continue
		}
		if who != "" {
			return ""
		}
		who = name
	}
	if who == "" || arms[who] < minArmFrames {
		return ""
	}
	return who
}

// decideAll decides the commits waiting in the queue; final decides them
// with what is known now, without waiting for busy seats.
func (a *Attributor) decideAll(tMS int64, final bool) {
	for i := range a.queue {
		if p := &a.queue[i]; p.need && !p.done {
			a.decide(p, tMS, final)
		}
	}
}

// decide attributes one commit, or leaves it waiting.
//
// A card gone from a seat's stack or row was played (a row card moved
// aside stays in the seat, C11), so one such loss of the face names the
// player. A card gone from the hand's pile may only have been covered by
// counting off, and a card revealed and played between two reads of a
// busy seat was never seen there at all: then the arm that reached the
// pile names the player, when it reached it alone and agrees with what
// the seats lost.
func (a *Attributor) decide(p *pending, tMS int64, final bool) {
	f, t := *p.o.Card, p.o.TimeMS
	type cand struct {
		s *seatWatch
		l *loss
	}
	var strong, weak []cand
	var doubt []string
	for _, s := range a.seats {
		var best *loss
		for i := range s.losses {
			l := &s.losses[i]
			if l.used || l.face != f || l.seenMS > t-a.cfg.FlightMS || l.goneMS < t-a.cfg.WindowMS {
				continue
			}
			if best == nil || (l.dealt && !best.dealt) || (l.dealt == best.dealt && l.goneMS > best.goneMS) {
				best = l
			}
		}
		switch {
		case best != nil && best.dealt:
			strong = append(strong, cand{s, best})
		case best != nil:
			weak = append(weak, cand{s, best})
		case s.dirty && faceCounts(s.cards)[f] > 0:
			// It showed the face when last read and has not been read
			// since: it may have laid it.
			doubt = append(doubt, s.player)
		}
	}
	arms := p.arms
	arm := clearArm(arms)
	expired := final || tMS-t >= a.cfg.HoldMS
	var pick *cand
	evidence := ""
	switch {
	case len(strong) == 1 && len(doubt) == 0 && (len(weak) == 0 || !a.twin(p)):
		pick, evidence = &strong[0], EvidenceDeal
	case len(strong) > 1 && arm != "":
		// Two seats lost the face from their deal (two decks' cards
		// played at once): the arm says whose reached this pile.
		for i := range strong {
			if strong[i].s.player == arm {
				pick, evidence = &strong[i], EvidenceDealArm
			}
		}
	case len(strong) == 0 && len(weak) == 1 && len(doubt) == 0 && a.othersIdle(weak[0].s, t, tMS):
		// Nobody else's cards changed around the play: the seat that lost
		// the face from its hand's pile laid it.
		pick, evidence = &weak[0], EvidenceHand
	case len(strong) == 0 && arm != "" && (len(doubt) == 0 || (len(doubt) == 1 && doubt[0] == arm)):
		for i := range weak {
			if weak[i].s.player == arm {
				pick, evidence = &weak[i], EvidenceHandArm
			}
		}
		if len(weak) == 0 && expired && a.cfg.ArmOnly && a.othersArmsSeen(arm) {
			evidence = EvidenceArm // no seat was seen losing it: only the arm
		}
	}
	if !expired && evidence == "" && len(strong) < 2 {
		return // wait for the busy seats
	}
	at := Attribution{TimeMS: t, Pile: p.o.Pile, Card: f, DecidedMS: tMS, Arms: arms}
	for _, c := range append(strong, weak...) {
		at.Candidates = append(at.Candidates, c.s.player)
	}
	switch {
	case pick != nil:
		pick.l.used = true
		at.Player, at.SeenMS, at.GoneMS = pick.s.player, pick.l.seenMS, pick.l.goneMS
	case evidence == EvidenceArm:
		at.Player = arm
	default:
		at.Candidates = append(at.Candidates, doubt...)
	}
	if evidence == EvidenceDeal || evidence == EvidenceDealArm {
		// Learn whether the camera sees this player's arm.
		a.armTried[at.Player]++
		if arms[at.Player] > 0 {
			a.armSeen[at.Player]++
		}
	}
	if at.Player != "" {
		at.Sure, at.Evidence = true, evidence
		p.o.Player = at.Player
		a.live[at.Player]++
	}
	a.atts = append(a.atts, at)
	p.done = true
}

// othersIdle reports whether every seat but s was seen unchanged from
// before the card of a commit at t could have left it until now: none of
// them can have laid it unseen.
func (a *Attributor) othersIdle(s *seatWatch, t, now int64) bool {
	for _, o := range a.seats {
		if o != s && (o.dirty || o.readAt < 0 || o.changedAt >= t-a.cfg.FlightMS-idleMS) {
			return false
		}
	}
	return true
}

// othersArmsSeen reports whether the arm of every player but who was seen
// on the piles where their cards were surely attributed by their seat.
func (a *Attributor) othersArmsSeen(who string) bool {
	for _, s := range a.seats {
		if n := a.armTried[s.player]; s.player != who && (n < 2 || 5*a.armSeen[s.player] < 4*n) {
			return false
		}
	}
	return true
}

// twin reports whether another commit of the same face lies within the
// window of p: then two seats' losses of it may belong to either.
func (a *Attributor) twin(p *pending) bool {
	for i := range a.queue {
		q := &a.queue[i]
		if q != p && q.need && *q.o.Card == *p.o.Card && abs64(q.o.TimeMS-p.o.TimeMS) <= a.cfg.WindowMS {
			return true
		}
	}
	for _, at := range a.atts {
		if at.Card == *p.o.Card && abs64(at.TimeMS-p.o.TimeMS) <= a.cfg.WindowMS {
			return true
		}
	}
	return false
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Attributor returns the pipeline's attributor, or nil when
// PipelineConfig.Attribute is off.
func (p *Pipeline) Attributor() *Attributor { return p.attr }

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
	p.attr = a
	a.locate = func(id int) (calibration.Point, bool) {
		for _, pl := range p.piles {
			if pl.id == id && p.view != nil {
				c := p.view.centreToCamera(pl.x, pl.y)
				return calibration.Point{X: float64(c.X), Y: float64(c.Y)}, true
			}
		}
		return calibration.Point{}, false
	}
	return nil
}
