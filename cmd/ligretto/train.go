package main

import (
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"ligretto/dataset/realphotos"
	"ligretto/model"
	"ligretto/model/plot"
	"ligretto/model/training"
)

func init() {
	register(command{name: "train", summary: "train the card classifier (from scratch, or on from saved weights); write weights and PNG plots", run: runTrain})
}

// trainOptions are train's flags; cfg holds those that are the model's.
type trainOptions struct {
	cfg                                          model.Config
	seed                                         uint64
	out, photos, from, colourWeights, snapshotAt string
	steps, evalN, replayN                        int
	photoShare, faceShare, printed               float64
	// Set on the command line, not left at their defaults.
	hiddenSet, backClassesSet, faceShareSet bool
	usage                                   func()
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	o, err := parseTrainFlags(args, stderr)
	if err != nil {
		return err
	}
	snapshotSteps, err := o.snapshotSteps()
	if err != nil {
		return err
	}
	if err := o.checkShares(); err != nil {
		return err
	}
	start, err := o.startWeights()
	if err != nil {
		return err
	}
	if o.out == "" {
		fmt.Fprintln(stderr, "ligretto train: --out DIR is required")
		o.usage()
		return errUsage
	}
	cfg := o.cfg
	cfg.Seed = o.seed
	if err := cfg.Validate(); err != nil {
		return err
	}
	var colourMix []float64 // read before anything is written or loaded
	if o.colourWeights != "" {
		if colourMix, err = parseFloats(o.colourWeights); err != nil {
			return fmt.Errorf("--colour-weights %q: %w", o.colourWeights, err)
		}
	}
	var replay *training.Replay
	if o.replayN != 0 {
		if replay, err = training.NewReplay(cfg, o.replayN, 2, 512); err != nil {
			return fmt.Errorf("--replay %d: %w", o.replayN, err)
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	var tune, held []training.PhotoCrop
	if o.photos != "" {
		if tune, held, err = loadPhotos(o.photos, cfg); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "photos: %d crops to fine-tune on, %d held out\n", len(tune), len(held))
	}
	data, err := o.trainingData(cfg, tune, colourMix)
	if err != nil {
		return err
	}
	w, hist, err := trainSteps(o, cfg, start, data, replay, snapshotSteps, stderr)
	if err != nil {
		return err
	}
	weightsPath := filepath.Join(o.out, "card.weights")
	if err := w.Save(weightsPath); err != nil {
		return err
	}
	if err := savePNG(filepath.Join(o.out, "training-curves.png"), hist.plot()); err != nil {
		return err
	}
	fast, err := model.NewFast(w)
	if err != nil {
		return err
	}
	defer fast.Close()
	evalBar := newProgress(stderr, "eval", o.evalN)
	rep, err := training.Evaluate(fast, o.seed+1_000_003, o.evalN, func(done, total int) { evalBar.update(done, "") })
	evalBar.done()
	if err != nil {
		return err
	}
	result := o.report(cfg, rep, colourMix, replay != nil)
	if len(held) > 0 {
		if err := evaluateHeldPhotos(fast, held, o.out, result); err != nil {
			return err
		}
	}
	if err := writeConfusions(o.out, rep); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(o.out, "report.json"), result); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "held-out synthetic: side %.4f colour %.4f number %.4f card %.4f back %.4f back(unseen) %.4f\nwrote %s and plots in %s\n",
		rep.Side, rep.Colour, rep.Number, rep.Card, rep.Back, rep.BackUnseen, weightsPath, o.out)
	return nil
}

// parseTrainFlags reads train's flags.
func parseTrainFlags(args []string, stderr io.Writer) (trainOptions, error) {
	fs := newFlags("train", "--seed S --out DIR [--steps N] [--from FILE] [--photos DIR] [--photo-share P]", stderr)
	o := trainOptions{cfg: model.DefaultConfig(), usage: fs.Usage}
	cfg := &o.cfg
	fs.Uint64Var(&o.seed, "seed", 1, "seed for the initial weights and the training data")
	fs.StringVar(&o.out, "out", "", "directory for card.weights, report.json and the PNG plots (required)")
	fs.IntVar(&o.steps, "steps", 6000, "training batches")
	fs.IntVar(&cfg.BatchSize, "batch", 32, "samples per batch")
	fs.IntVar(&cfg.BackClasses, "back-classes", 256, "back designs to train on: the 12 real ones and random ones")
	fs.IntVar(&cfg.Hidden, "hidden", cfg.Hidden, "width of the fully connected layer the heads share")
	fs.Float64Var(&cfg.BackWeight, "back-weight", cfg.BackWeight, "weight of the back-identity loss against the side, colour and number losses")
	fs.Float64Var(&cfg.BackMargin, "back-margin", cfg.BackMargin, "CosFace margin of the back classifier (0: none)")
	fs.StringVar(&o.photos, "photos", "", "folder of labelled real photos (images/, labels/, data.yaml) to mix in: only the fine-tuning half is used")
	fs.Float64Var(&o.photoShare, "photo-share", 0.1, "share of each batch taken from the real photos")
	fs.IntVar(&o.evalN, "eval-n", 4000, "held-out crops to evaluate at the end")
	fs.StringVar(&o.from, "from", "", "start from these weights (their architecture) instead of fresh ones: the learning-rate schedule starts again (a warm restart); give another --seed than their run's, or the data repeats")
	fs.Float64Var(&cfg.LearnRate, "learn-rate", cfg.LearnRate, "peak Adam step size (warm-up, then a cosine decay to 5% of it)")
	fs.StringVar(&o.colourWeights, "colour-weights", "", "how often each face colour is drawn, as red,green,blue,yellow weights (1,1,1,2 shows yellow twice as often); empty: equally")
	fs.IntVar(&o.replayN, "replay", 0, "face crops of each batch replaced by ones the network found hard (wrong or under 60% sure), each shown twice more at most; 0: none")
	fs.Float64Var(&o.faceShare, "face-share", 0.5, "share of the synthetic samples that are faces (the rest are backs)")
	fs.Float64Var(&o.printed, "printed", 0, "share of the synthetic faces drawn in the real Ligretto print's style (0..1); 0: none, the data as before")
	fs.StringVar(&o.snapshotAt, "snapshot-at", "", "also write the weights after these steps (a comma list), as card-STEP.weights in --out, for a second network to start from")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	o.hiddenSet, o.backClassesSet, o.faceShareSet = explicit(fs, "hidden"), explicit(fs, "back-classes"), explicit(fs, "face-share")
	return o, nil
}

// snapshotSteps reads --snapshot-at.
func (o trainOptions) snapshotSteps() ([]int, error) {
	if o.snapshotAt == "" {
		return nil, nil
	}
	var steps []int
	for f := range strings.SplitSeq(o.snapshotAt, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > o.steps {
			return nil, fmt.Errorf("--snapshot-at %q: want steps between 1 and --steps (%d)", o.snapshotAt, o.steps)
		}
		steps = append(steps, n)
	}
	return steps, nil
}

// checkShares checks --printed and --face-share.
func (o trainOptions) checkShares() error {
	if !(o.printed >= 0 && o.printed <= 1) {
		return fmt.Errorf("--printed %g: want a probability between 0 and 1", o.printed)
	}
	if !(o.faceShare > 0 && o.faceShare < 1) {
		return fmt.Errorf("--face-share %g: want a share between 0 and 1", o.faceShare)
	}
	return nil
}

// startWeights loads --from, if given, and takes its architecture into
// o.cfg; --hidden and --back-classes, if given, must agree with it.
func (o *trainOptions) startWeights() (*model.Weights, error) {
	if o.from == "" {
		return nil, nil
	}
	start, err := model.LoadWeights(o.from)
	if err != nil {
		return nil, err
	}
	cfg := &o.cfg
	if o.hiddenSet && cfg.Hidden != start.Config.Hidden {
		return nil, fmt.Errorf("--hidden %d, but %s has %d", cfg.Hidden, o.from, start.Config.Hidden)
	}
	if o.backClassesSet && cfg.BackClasses != start.Config.BackClasses {
		return nil, fmt.Errorf("--back-classes %d, but %s has %d", cfg.BackClasses, o.from, start.Config.BackClasses)
	}
	a := start.Config
	cfg.Width, cfg.Height, cfg.Channels, cfg.Hidden, cfg.EmbedDim, cfg.BackClasses, cfg.BNEpsilon =
		a.Width, a.Height, a.Channels, a.Hidden, a.EmbedDim, a.BackClasses, a.BNEpsilon
	return start, nil
}

// trainingData is the training data as the flags shape it.
func (o trainOptions) trainingData(cfg model.Config, tune []training.PhotoCrop, colourMix []float64) (*training.Data, error) {
	data, err := training.NewData(cfg, o.seed, tune, o.photoShare)
	if err != nil {
		return nil, err
	}
	if colourMix != nil {
		if err := data.SetColourWeights(colourMix); err != nil {
			return nil, fmt.Errorf("--colour-weights %q: %w", o.colourWeights, err)
		}
	}
	if o.faceShareSet {
		if err := data.SetFaceShare(o.faceShare); err != nil {
			return nil, err
		}
	}
	if o.printed > 0 {
		if err := data.SetPrinted(o.printed); err != nil {
			return nil, fmt.Errorf("--printed %g: %w", o.printed, err)
		}
	}
	return data, nil
}

// trainSteps trains, with a progress bar and snapshots; hist holds the
// training curves.
func trainSteps(o trainOptions, cfg model.Config, start *model.Weights, data *training.Data, replay *training.Replay, snapshotSteps []int, stderr io.Writer) (_ *model.Weights, hist *history, _ error) {
	// Each batch is rendered when the step asks for it, on both cores
	// (data.Next), not ahead beside the step, which would hold one of its
	// workers back while the other waited.
	next := func() (training.Batch, error) {
		b, err := data.Next()
		if err != nil {
			return training.Batch{}, err
		}
		if replay != nil {
			replay.Mix(&b)
		}
		return b, nil
	}
	var snapshots []training.Snapshot
	for _, n := range snapshotSteps {
		path := filepath.Join(o.out, fmt.Sprintf("card-%d.weights", n))
		snapshots = append(snapshots, training.Snapshot{Step: n, Save: func(w *model.Weights) error { return w.Save(path) }})
	}
	hist = newHistory()
	bar := newProgress(stderr, "train", o.steps)
	w, err := training.Train(cfg, start, next, o.steps, func(step int, l training.Losses) {
		if replay != nil {
			replay.Note(l.Hard)
		}
		hist.add(step, l)
		bar.update(step+1, fmt.Sprintf("loss %.3f  side %.2f colour %.2f number %.2f back %.2f",
			l.Total, l.SideAcc, l.ColourAcc, l.NumberAcc, l.BackAcc))
	}, snapshots...)
	bar.done()
	if err != nil {
		return nil, nil, err
	}
	return w, hist, nil
}

// report is report.json's content but for the held-out photos.
func (o trainOptions) report(cfg model.Config, rep training.Report, colourMix []float64, replayed bool) map[string]any {
	result := map[string]any{"synthetic": rep, "seed": o.seed, "steps": o.steps, "config": cfg}
	if o.from != "" {
		result["from"] = o.from
	}
	if colourMix != nil {
		result["colour_weights"] = colourMix
	}
	if o.faceShareSet {
		result["face_share"] = o.faceShare
	}
	if o.printed > 0 {
		result["printed"] = o.printed
	}
	if replayed {
		result["replay"] = o.replayN
	}
	return result
}

// evaluateHeldPhotos scores the held-out photos into result and plots
// their colour confusion into dir.
func evaluateHeldPhotos(p model.Predictor, held []training.PhotoCrop, dir string, result map[string]any) error {
	pr, err := training.EvaluatePhotos(p, held)
	if err != nil {
		return err
	}
	result["photos_held_out"] = pr
	return savePNG(filepath.Join(dir, "confusion-photo-colour.png"), plot.Confusion("real photos (held out): colour", model.ColourNames[:], pr.ColourConfusion))
}

func writeConfusions(dir string, rep training.Report) error {
	nums := make([]string, 10)
	for i := range nums {
		nums[i] = fmt.Sprint(i + 1)
	}
	for name, img := range map[string]*image.RGBA{
		"confusion-side.png":   plot.Confusion("side", []string{"face", "back"}, rep.SideConfusion),
		"confusion-colour.png": plot.Confusion("colour (faces)", model.ColourNames[:], rep.ColourConfusion),
		"confusion-number.png": plot.Confusion("number (faces)", nums, rep.NumberConfusion),
	} {
		if err := savePNG(filepath.Join(dir, name), img); err != nil {
			return err
		}
	}
	return nil
}

// loadPhotos reads the labelled photos and splits their crops into the
// fine-tuning half and the held-out half (realphotos.HeldOut, by file name).
func loadPhotos(dir string, cfg model.Config) (tune, held []training.PhotoCrop, err error) {
	yaml, err := os.Open(filepath.Join(dir, "data.yaml"))
	if err != nil {
		return nil, nil, fmt.Errorf("open photo classes: %w", err)
	}
	names, err := realphotos.ParseClassNames(yaml)
	yaml.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", filepath.Join(dir, "data.yaml"), err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "images"))
	if err != nil {
		return nil, nil, fmt.Errorf("list photos: %w", err)
	}
	skipped := 0
	for _, e := range entries {
		crops, err := loadPhoto(dir, e.Name(), names, cfg)
		if err != nil {
			skipped++ // one bad photo must not stop the rest
			continue
		}
		if realphotos.HeldOut(e.Name()) {
			held = append(held, crops...)
		} else {
			tune = append(tune, crops...)
		}
	}
	if len(tune)+len(held) == 0 {
		return nil, nil, fmt.Errorf("no usable photos in %s (%d unreadable)", dir, skipped)
	}
	return tune, held, nil
}

func loadPhoto(dir, name string, classNames []string, cfg model.Config) ([]training.PhotoCrop, error) {
	f, err := os.Open(filepath.Join(dir, "images", name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", name, err)
	}
	lf, err := os.Open(filepath.Join(dir, "labels", strings.TrimSuffix(name, filepath.Ext(name))+".txt"))
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	boxes, _, err := realphotos.ParseLabels(lf)
	if err != nil {
		return nil, fmt.Errorf("labels of %s: %w", name, err)
	}
	return training.PhotoCrops(img, boxes, classNames, cfg.Width, cfg.Height), nil
}

func savePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return f.Close()
}

// history keeps smoothed training curves for the plot.
type history struct {
	steps                               []float64
	loss, side, colour, number, back    []float64
	accSide, accColour, accNum, accBack []float64
	ema                                 training.Losses
	n                                   int
}

func newHistory() *history { return &history{} }

func (h *history) add(step int, l training.Losses) {
	const a = 0.05
	mix := func(old, v float64) float64 {
		if h.n == 0 || v != v { // first value, or NaN (no sample of that head)
			if v != v {
				return old
			}
			return v
		}
		return old*(1-a) + v*a
	}
	e := &h.ema
	e.Total, e.Side, e.Colour, e.Number, e.Back = mix(e.Total, l.Total), mix(e.Side, l.Side), mix(e.Colour, l.Colour), mix(e.Number, l.Number), mix(e.Back, l.Back)
	e.SideAcc, e.ColourAcc, e.NumberAcc, e.BackAcc = mix(e.SideAcc, l.SideAcc), mix(e.ColourAcc, l.ColourAcc), mix(e.NumberAcc, l.NumberAcc), mix(e.BackAcc, l.BackAcc)
	h.n++
	if step%10 != 0 {
		return
	}
	h.steps = append(h.steps, float64(step))
	h.loss, h.side, h.colour, h.number, h.back = append(h.loss, e.Total), append(h.side, e.Side), append(h.colour, e.Colour), append(h.number, e.Number), append(h.back, e.Back)
	h.accSide, h.accColour, h.accNum, h.accBack = append(h.accSide, e.SideAcc), append(h.accColour, e.ColourAcc), append(h.accNum, e.NumberAcc), append(h.accBack, e.BackAcc)
}

func (h *history) plot() *image.RGBA {
	loss := plot.Lines("training loss (smoothed)", "step", []plot.Series{
		{Name: "total", X: h.steps, Y: h.loss}, {Name: "side", X: h.steps, Y: h.side}, {Name: "colour", X: h.steps, Y: h.colour},
		{Name: "number", X: h.steps, Y: h.number}, {Name: "back", X: h.steps, Y: h.back}}, true, 800, 360)
	acc := plot.Lines("batch accuracy (smoothed)", "step", []plot.Series{
		{Name: "side", X: h.steps, Y: h.accSide}, {Name: "colour", X: h.steps, Y: h.accColour},
		{Name: "number", X: h.steps, Y: h.accNum}, {Name: "back", X: h.steps, Y: h.accBack}}, false, 800, 360)
	img := image.NewRGBA(image.Rect(0, 0, 800, 720))
	copyInto(img, loss, 0)
	copyInto(img, acc, 360)
	return img
}

func copyInto(dst, src *image.RGBA, y0 int) {
	for y := 0; y < src.Bounds().Dy(); y++ {
		copy(dst.Pix[dst.PixOffset(0, y0+y):], src.Pix[src.PixOffset(0, y):src.PixOffset(src.Bounds().Dx(), y)])
	}
}

// progress is a one-line progress bar on a terminal, or a line every few
// seconds elsewhere, with the rate and the time left.
type progress struct {
	w     io.Writer
	name  string
	total int
	start time.Time
	last  time.Time
}

func newProgress(w io.Writer, name string, total int) *progress {
	return &progress{w: w, name: name, total: total, start: time.Now()}
}

func (p *progress) update(done int, note string) {
	now := time.Now()
	if now.Sub(p.last) < time.Second && done < p.total {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	left := time.Duration(0)
	if done > 0 {
		left = time.Duration(float64(el) / float64(done) * float64(p.total-done))
	}
	const width = 24
	fill := width * done / max(p.total, 1)
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d  %s elapsed, %s left  %s", p.name, strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		done, p.total, el.Round(time.Second), left.Round(time.Second), note)
}

func (p *progress) done() { fmt.Fprintln(p.w) }
