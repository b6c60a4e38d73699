package table

import (
	"sync"

	"gocv.io/x/gocv"
)

// Prefetch reads src one frame ahead on a goroutine of its own, so that
// decoding the next frame (a fifth of the time of a video refereed as
// fast as it goes) overlaps the work on this one. The frames, their
// order and their errors are src's. Each Mat is used by one goroutine at a
// time: Next hands the caller a decoded Mat and takes the caller's old
// one back for the next decode.
func Prefetch(src Source) Source {
	p := &prefetch{src: src, free: make(chan gocv.Mat, 2), full: make(chan fetched, 1), stop: make(chan struct{})}
	p.free <- gocv.NewMat()
	p.free <- gocv.NewMat()
	p.wg.Add(1)
	go p.run()
	return p
}

type fetched struct {
	m    gocv.Mat
	shot Shot
	err  error
}

type prefetch struct {
	src  Source
	free chan gocv.Mat
	full chan fetched
	stop chan struct{}
	wg   sync.WaitGroup
	err  error // the error that ended the source, given to every later Next
	once sync.Once
	cerr error
}

func (p *prefetch) run() {
	defer p.wg.Done()
	for {
		var m gocv.Mat
		select {
		case m = <-p.free:
		case <-p.stop:
			return
		}
		shot, err := p.src.Next(&m)
		select {
		case p.full <- fetched{m, shot, err}:
		case <-p.stop:
			m.Close()
			return
		}
		if err != nil {
			return
		}
	}
}

func (p *prefetch) Next(dst *gocv.Mat) (Shot, error) {
	if p.err != nil {
		return Shot{}, p.err
	}
	f := <-p.full
	if f.err != nil {
		p.err = f.err
		f.m.Close()
		return f.shot, f.err
	}
	*dst, f.m = f.m, *dst
	p.free <- f.m
	return f.shot, nil
}

// Close stops reading (after the frame being decoded, if any) and closes
// src.
func (p *prefetch) Close() error {
	p.once.Do(func() {
		close(p.stop)
		p.wg.Wait()
		for {
			select {
			case f := <-p.full:
				f.m.Close()
				continue
			case m := <-p.free:
				m.Close()
				continue
			default:
			}
			break
		}
		p.cerr = p.src.Close()
	})
	return p.cerr
}
