package vision

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/vision/find"
)

// ErrCalibration means the calibration does not fit what the camera sends.
var ErrCalibration = errors.New("calibration does not fit this source (run `ligretto calibrate` for this camera)")

// WorkPxPerMM is the scale of the rectified images the pipeline searches:
// a card is 29x43.5 pixels there. Crops for the classifier come from the
// camera frame itself, at its full resolution.
const WorkPxPerMM = 0.5

// centreMarginMM is how far round the calibrated centre area the pipeline
// looks: half a card's length, so that a card whose centre lies in the
// area is seen whole. The seats' cards keep further off (calibration.Zones
// keeps the area 85 mm clear of where a seat's cards reach).
const centreMarginMM = calibration.CardHMM / 2

// tableView is a calibration at the pipeline's working scale: homographies
// between the camera and a rectified region (the centre, or the whole
// table), as Mats ready for WarpPerspective.
type tableView struct {
	cal     *calibration.File
	scale   float64                // work pixels per table-image pixel
	toWork  calibration.Homography // camera -> whole table at work scale
	fromTab calibration.Homography // whole table work -> camera
	// centre is the part of the whole table (work pixels) the pipeline
	// rectifies: the calibrated centre area and a margin round it, so
	// that a pile at the area's edge is seen whole. inner is the
	// calibrated area itself, in the rectified centre's pixels: piles
	// are cards whose centre lies in it.
	centre  image.Rectangle
	inner   image.Rectangle
	full    image.Point // whole table size in work pixels
	hCentre gocv.Mat    // camera -> centre rectangle (origin at its corner)
	hFull   gocv.Mat    // camera -> whole table
}

func newTableView(cal *calibration.File, frameW, frameH int) (*tableView, error) {
	if err := cal.Validate(); err != nil {
		return nil, err
	}
	if frameW != cal.ImageW || frameH != cal.ImageH {
		return nil, fmt.Errorf("%w: frames are %dx%d, the calibration was made on %dx%d", ErrCalibration, frameW, frameH, cal.ImageW, cal.ImageH)
	}
	t := &tableView{cal: cal, scale: WorkPxPerMM / cal.Scale()}
	t.toWork = cal.H().Scale(t.scale)
	t.fromTab = t.toWork.Inverse()
	t.full = image.Pt(int(math.Round(float64(cal.TableW)*t.scale)), int(math.Round(float64(cal.TableH)*t.scale)))
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range cal.Centre {
		x0, y0 = math.Min(x0, p.X), math.Min(y0, p.Y)
		x1, y1 = math.Max(x1, p.X), math.Max(y1, p.Y)
	}
	inner := image.Rect(int(x0*t.scale), int(y0*t.scale), int(math.Ceil(x1*t.scale)), int(math.Ceil(y1*t.scale))).Intersect(image.Rectangle{Max: t.full})
	if inner.Dx() < 20 || inner.Dy() < 20 {
		return nil, fmt.Errorf("%w: the centre area is too small", calibration.ErrZone)
	}
	margin := int(math.Ceil(centreMarginMM * WorkPxPerMM))
	t.centre = inner.Inset(-margin).Intersect(image.Rectangle{Max: t.full})
	t.inner = inner.Sub(t.centre.Min)
	t.hCentre = homMat(t.toWork.Translate(-float64(t.centre.Min.X), -float64(t.centre.Min.Y)))
	t.hFull = homMat(t.toWork)
	return t, nil
}

func (t *tableView) Close() {
	t.hCentre.Close()
	t.hFull.Close()
}

func homMat(h calibration.Homography) gocv.Mat {
	m := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	for i, v := range h {
		m.SetDoubleAt(i/3, i%3, v)
	}
	return m
}

// rectifyCentre warps the centre area of frame into dst.
func (t *tableView) rectifyCentre(frame gocv.Mat, dst *gocv.Mat) {
	gocv.WarpPerspectiveWithParams(frame, dst, t.hCentre, image.Pt(t.centre.Dx(), t.centre.Dy()), gocv.InterpolationLinear, gocv.BorderReplicate, color0)
}

// rectifyFull warps the whole table of frame into dst.
func (t *tableView) rectifyFull(frame gocv.Mat, dst *gocv.Mat) {
	gocv.WarpPerspectiveWithParams(frame, dst, t.hFull, t.full, gocv.InterpolationLinear, gocv.BorderReplicate, color0)
}

// toCamera maps a point of the centre image to camera pixels.
func (t *tableView) centreToCamera(x, y float64) image.Point {
	p := t.fromTab.Apply(calibration.Point{X: x + float64(t.centre.Min.X), Y: y + float64(t.centre.Min.Y)})
	return image.Pt(int(math.Round(p.X)), int(math.Round(p.Y)))
}

// fullToCamera maps a point of the whole-table work image to camera pixels.
func (t *tableView) fullToCamera(x, y float64) image.Point {
	p := t.fromTab.Apply(calibration.Point{X: x, Y: y})
	return image.Pt(int(math.Round(p.X)), int(math.Round(p.Y)))
}

// Quad is a card's outline in image pixels (see find.Quad).
type Quad = find.Quad

// cardOptions look for a Ligretto card in a work image: up to 1.6 cards
// is one card (a pile whose top lies askew), above that the outline is
// split into touching cards (see find.TableOptions).
func cardOptions() find.Options {
	return find.TableOptions(calibration.CardWMM*WorkPxPerMM, calibration.CardHMM*WorkPxPerMM)
}

// againstTable are cardOptions against the empty table's picture table
// (the work image's size; where it does not fit, the edges alone), by
// hue too where plain (or nil) marks it plain, fitting cards into heaps
// of touching piles when fit is set.
func againstTable(table, plain *gocv.Mat, fit bool) find.Options {
	o := cardOptions()
	o.Table, o.Plain, o.Fit = table, plain, fit
	return o
}

var color0 = color.RGBA{}

// cropFromCamera warps the card whose corners (in camera pixels) are q to
// the classifier's crop, corrected by the white balance gains (R, G, B).
func cropFromCamera(frame gocv.Mat, q Quad, wb [3]float64, w, h int) (model.Crop, error) {
	warped := find.WarpCard(frame, find.OrderCorners(q), w, h)
	defer warped.Close()
	return cropOf(warped, wb)
}

// backViewsFromCamera warps the card whose corners (in camera pixels) are
// q to both views model.ClassifyBacks reads: the whole card at the crop
// size, and its centre nearer, cut from the card warped to
// cfg.DetailSize (from the camera's pixels, so the detail view holds
// detail the whole view has lost).
func backViewsFromCamera(frame gocv.Mat, q Quad, wb [3]float64, cfg model.Config) (model.BackViews, error) {
	whole, err := cropFromCamera(frame, q, wb, cfg.Width, cfg.Height)
	if err != nil {
		return model.BackViews{}, err
	}
	dw, dh := cfg.DetailSize()
	warped := find.WarpCard(frame, find.OrderCorners(q), dw, dh)
	defer warped.Close()
	region := warped.Region(cfg.DetailRect())
	centre := region.Clone() // a region's rows are not contiguous
	region.Close()
	defer centre.Close()
	detail, err := cropOf(centre, wb)
	if err != nil {
		return model.BackViews{}, err
	}
	return model.BackViews{Whole: whole, Detail: detail}, nil
}

// cropOf converts a continuous BGR Mat to a crop, corrected by the white
// balance gains (R, G, B).
func cropOf(m gocv.Mat, wb [3]float64) (model.Crop, error) {
	b, err := m.DataPtrUint8()
	if err != nil {
		return nil, err
	}
	w, h := m.Cols(), m.Rows()
	c, err := model.CropFromBGR(b, w, h)
	if err != nil {
		return nil, err
	}
	plane := w * h
	for ch := range 3 {
		g := float32(wb[ch])
		if g == 0 || g == 1 {
			continue
		}
		seg := c[ch*plane : (ch+1)*plane]
		for i, v := range seg {
			seg[i] = min(v*g, 1)
		}
	}
	return c, nil
}
