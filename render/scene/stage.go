package scene

import (
	"fmt"
	"image"
	"math/rand/v2"
	"slices"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/vision/aruco"
)

// Stage is the table as the camera sees it, before any game's pieces lie
// on it: the surface with the four markers, the players round it (their
// bodies, shoulders and hands), the camera, the light and the sensor. A
// Scene is a Stage with the classic game's cards; other renderers
// (render/tiles) draw their own pieces on a Stage: still pieces with
// Draw and Shade onto its board (ResetBoard starts it again from the
// empty table), pieces in the air and hands with Expose, which also
// develops the frame. A Stage is not safe for concurrent use.
type Stage struct {
	cfg  Config
	seed uint64
	lay  *layout
	cam  *camera

	bg, board, work canvas

	rmap *remapper
	vig  []float32
	// shade is the shade's coverage (Config.ShadeDepth), vigShaded the
	// vignette darkened by it, made again each shaded frame.
	shade, vigShaded []float32
	rowG             []float32
	colG             []float32
	noise            []int8
	offs             []int32
	light            [8]float64
	black            int
	frame            []byte // BGR output when rendering to an image.RGBA
	hr               handRaster
	bgBGR            [3]uint8
}

// NewStage makes a table of tableW x tableH mm (at least 500 x 400) with
// the named players seated round it (1 to 12, the long sides first, as a
// Scene seats them) and the camera, surface and light drawn from seed.
// Its Geometry's centre area is the table within 70 mm of its edges.
func NewStage(cfg Config, players []string, tableW, tableH float64, seed uint64) (*Stage, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(players) < 1 || len(players) > 12 || tableW < 500 || tableH < 400 || tableW > 5000 || tableH > 5000 {
		return nil, fmt.Errorf("%w: %d players at a %.0fx%.0f mm table", ErrConfig, len(players), tableW, tableH)
	}
	ps := make([]referee.Player, len(players))
	for i, n := range players {
		ps[i] = referee.Player{Name: n}
	}
	rng := rand.New(rand.NewPCG(seed, 0x7374616765))
	L := &layout{rowSize: referee.RowSize(len(players)), w: tableW, h: tableH}
	L.centre = [4]float64{-tableW/2 + 70, -tableH/2 + 70, tableW/2 - 70, tableH/2 - 70}
	L.furnish(ps, seatCounts(len(players)), rng)
	s := &Stage{}
	if err := s.build(cfg, seed, L, rng); err != nil {
		return nil, err
	}
	return s, nil
}

// build sets the stage up round layout L, drawing from rng in a fixed
// order (a Scene's frames depend on it).
func (s *Stage) build(cfg Config, seed uint64, L *layout, rng *rand.Rand) error {
	s.cfg, s.seed, s.lay = cfg, seed, L
	kind := cfg.Table
	if kind == TableRandom {
		kinds := []string{TableWood, TableWood, TableCloth, TableLinen, TableLight}
		kind = kinds[rng.IntN(len(kinds))]
	}
	margin := 0.035
	s.cam = newCamera(cfg, s.lay.w/2*(1+margin), s.lay.h/2*(1+2*margin), rng)
	var cells [4][36]bool
	for i := range 4 {
		m, err := aruco.Marker(i, 6)
		if err != nil {
			return err
		}
		for k, v := range m {
			cells[i][k] = v < 128
		}
	}
	s.setupCanvas()
	paintBackground(&s.bg, s.lay, kind, rng, cells)
	s.board = canvas{w: s.bg.w, h: s.bg.h, ox: s.bg.ox, oy: s.bg.oy, s: s.bg.s, pix: make([]byte, len(s.bg.pix))}
	s.work = s.board
	s.work.pix = make([]byte, len(s.bg.pix))
	s.setupCamera()
	s.setupLight(rng)
	s.hr.shadowDir = Pt{0.25, 0.36}
	return nil
}

// Config returns the camera's configuration.
func (s *Stage) Config() Config { return s.cfg }

// Geometry returns the table, markers, seats and camera.
func (s *Stage) Geometry() Geometry {
	g := Geometry{TableW: s.lay.w, TableH: s.lay.h, Homography: s.cam.hom, Distortion: s.cam.k1,
		Width: s.cfg.Width, Height: s.cfg.Height}
	for i, m := range s.lay.markers {
		g.Markers[i] = MarkerTruth{ID: m.id, Table: m.quad, Image: s.projectQuad(m.quad)}
	}
	c := s.lay.centre
	g.Centre = Quad{{c[0], c[1]}, {c[2], c[1]}, {c[2], c[3]}, {c[0], c[3]}}
	for _, st := range s.lay.seats {
		sg := st.SeatGeometry
		sg.Slots = slices.Clone(sg.Slots)
		g.Seats = append(g.Seats, sg)
	}
	return g
}

// Project maps a table point (mm) to image pixels, lens distortion included.
func (s *Stage) Project(p Pt) Pt { return s.cam.project(p) }

// Unproject maps an image pixel to the table plane (mm).
func (s *Stage) Unproject(p Pt) Pt { return s.cam.unproject(p) }

func (s *Stage) projectQuad(q Quad) Quad {
	var out Quad
	for i, p := range q {
		out[i] = s.cam.project(p)
	}
	return out
}

// Scale is the resolution of the table-plane canvas pieces are drawn on,
// in pixels per millimetre: sprites of about 1.4 times it look sharp.
func (s *Stage) Scale() float64 { return s.bg.s }

// ShadowDir is how far a shadow falls, per millimetre of height above the
// table, in table millimetres.
func (s *Stage) ShadowDir() Pt { return s.hr.shadowDir }

// Sprite is an image of a piece to draw on the table, premultiplied,
// spanning a given size in millimetres.
type Sprite struct{ sp *sprite }

// NewSprite makes a sprite of img (premultiplied RGBA, as image/draw
// makes it) spanning mmW x mmH millimetres. Only the alpha of a shadow's
// sprite matters.
func NewSprite(img *image.RGBA, mmW, mmH float64) *Sprite {
	return &Sprite{newSprite(img, mmW, mmH)}
}

// NewCardShadow makes the soft shadow of a card of mmW x mmH with
// slightly rounded corners, blurred over soft millimetres, at k pixels
// per millimetre.
func NewCardShadow(mmW, mmH, soft, k float64) *Sprite {
	return &Sprite{newShadowSprite(mmW, mmH, soft, k)}
}

// ResetBoard clears the still pieces: the board is the empty table again.
func (s *Stage) ResetBoard() { copy(s.board.pix, s.bg.pix) }

// Draw lays sprite sp on the board, centred at c (table mm) and turned by
// angle radians (clockwise as the image shows it).
func (s *Stage) Draw(sp *Sprite, c Pt, angle float64) { s.board.draw(sp.sp, pose{c, angle}) }

// Shade darkens the board under the alpha of sp centred at c and turned
// by angle, by strength (0..1): a shadow.
func (s *Stage) Shade(sp *Sprite, c Pt, angle, strength float64) {
	s.board.shade(sp.sp, pose{c, angle}, strength)
}

// Flying is a piece in the air over the board: its sprite centred at C,
// turned by Angle, Lift mm above the table, and its shadow's sprite and
// strength (0..1).
type Flying struct {
	Sprite, Shadow *Sprite
	C              Pt
	Angle, Lift    float64
	ShadowStrength float64
}

// Hand is a player's arm reaching over the table, as a Stage draws it.
type Hand struct{ h hand }

// Hand makes the arm of the player in seat (0-based, in the order
// NewStage was given them) reaching to a palm centred at palm; right
// chooses the hand, spread (0..1) opens its fingers. A player who reaches
// far leans in over the table.
func (s *Stage) Hand(seat int, palm Pt, right bool, spread float64) Hand {
	return Hand{newHand(&s.lay.seats[seat].look, palm, right, spread)}
}

// Shoulder is where the arm of the player in seat starts (table mm).
func (s *Stage) Shoulder(seat int, right bool) Pt {
	if right {
		return s.lay.seats[seat].look.shoulder[1]
	}
	return s.lay.seats[seat].look.shoulder[0]
}

// Covers reports whether table point p is under the hand, its arm or the
// body of a player leaning in.
func (h *Hand) Covers(p Pt) bool { return h.h.covers(p) }

// Expose renders the frame at tMS (ms; it sets the drifting light and the
// noise): the board, with the pieces in the air and their shadows and the
// hands over it, through the camera, light and sensor, into pix (8-bit
// BGR, the configured size, stride bytes a row).
func (s *Stage) Expose(tMS int64, fl []Flying, hands []Hand, pix []byte, stride int) error {
	if err := s.checkBuffer(pix, stride); err != nil {
		return err
	}
	src := s.board.pix
	if len(fl) > 0 || len(hands) > 0 {
		copy(s.work.pix, s.board.pix)
		for _, f := range fl {
			if f.Shadow != nil {
				s.work.shade(f.Shadow.sp, pose{f.C.add(s.hr.shadowDir.mul(1.2 + f.Lift)), f.Angle}, f.ShadowStrength)
			}
		}
		for _, f := range fl {
			s.work.draw(f.Sprite.sp, pose{f.C, f.Angle})
		}
		for i := range hands {
			s.work.drawHand(&hands[i].h, &s.hr)
		}
		src = s.work.pix
	}
	return s.develop(tMS, src, pix, stride)
}

// develop warps the table-plane canvas src through the camera into pix
// and applies blur, light, noise and JPEG.
func (s *Stage) develop(tMS int64, src, pix []byte, stride int) error {
	W, H := s.cfg.Width, s.cfg.Height
	s.rmap.remap(src, s.bg.w, s.bg.h, pix, stride, s.bgBGR)
	if s.cfg.Blur > 0 {
		blur(pix, W, H, stride, s.cfg.Blur)
	}
	s.applyLight(tMS, pix, stride)
	if s.cfg.JPEGQuality > 0 {
		return jpegRoundTrip(pix, W, H, stride, s.cfg.JPEGQuality)
	}
	return nil
}

// checkBuffer checks that pix with stride holds a frame.
func (s *Stage) checkBuffer(pix []byte, stride int) error {
	W, H := s.cfg.Width, s.cfg.Height
	if stride < 3*W || len(pix) < stride*(H-1)+3*W {
		return fmt.Errorf("%w: buffer of %d bytes, stride %d, for %dx%d", ErrFrame, len(pix), stride, W, H)
	}
	return nil
}

// FramePixels returns the pixels of dst, a continuous 8-bit BGR Mat of
// the configured size (an empty Mat is replaced by one: the caller still
// closes it), to render a frame into with stride 3*Width.
func (s *Stage) FramePixels(dst *gocv.Mat) ([]byte, error) {
	W, H := s.cfg.Width, s.cfg.Height
	if dst.Empty() {
		dst.Close() // an empty Mat still holds a C object
		*dst = gocv.NewMatWithSize(H, W, gocv.MatTypeCV8UC3)
	}
	if dst.Cols() != W || dst.Rows() != H || dst.Type() != gocv.MatTypeCV8UC3 || !dst.IsContinuous() {
		return nil, fmt.Errorf("%w: %dx%d type %v, want continuous %dx%d CV_8UC3", ErrFrame, dst.Cols(), dst.Rows(), dst.Type(), W, H)
	}
	pix, err := dst.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	return pix, nil
}
