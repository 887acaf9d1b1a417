package orphan

import "time"

// Sample is one time-series point.
type Sample struct {
	Fingerprint uint64
	Timestamp   time.Time
	Value       float64
}

// indexer maintains the fingerprint index and the watermarks.
type indexer interface {
	IndexFingerprints(samples []Sample) error
	UpdateWatermarks(samples []Sample) error
	WriteSamples(samples []Sample) error
}

// LevelDBPersistence stores samples.
type LevelDBPersistence struct {
	idx indexer
}

// AppendSamples updates the index and the watermarks in parallel, then
// writes the samples.
//
// From: prometheus/prometheus#213
// bug: orphansend
func (l *LevelDBPersistence) AppendSamples(samples []Sample) error {
	indexErrChan := make(chan error)
	watermarkErrChan := make(chan error)
	go func() {
		indexErrChan <- l.idx.IndexFingerprints(samples)
	}()
	go func() {
		watermarkErrChan <- l.idx.UpdateWatermarks(samples)
	}()
	if err := <-indexErrChan; err != nil {
		return err
	}
	if err := <-watermarkErrChan; err != nil {
		return err
	}
	return l.idx.WriteSamples(samples)
}

// AppendSamplesNearMiss buffers both error channels, so the watermark
// goroutine can finish even when the index error returns first.
//
// ok: orphansend
func (l *LevelDBPersistence) AppendSamplesNearMiss(samples []Sample) error {
	indexErrChan := make(chan error, 1)
	watermarkErrChan := make(chan error, 1)
	go func() {
		indexErrChan <- l.idx.IndexFingerprints(samples)
	}()
	go func() {
		watermarkErrChan <- l.idx.UpdateWatermarks(samples)
	}()
	if err := <-indexErrChan; err != nil {
		return err
	}
	if err := <-watermarkErrChan; err != nil {
		return err
	}
	return l.idx.WriteSamples(samples)
}
