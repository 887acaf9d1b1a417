package lease

import (
	"errors"
	"fmt"
	"os"
)

// FileSink writes agent tokens atomically into a directory.
type FileSink struct {
	dir      string
	path     string
	uid, gid int
}

// WriteToken creates the temp file and, when changing its ownership fails, returns without closing
// it; the agent leaks a descriptor on every renewal while the chown keeps failing.
// From: hashicorp/vault#31801
// bug: leaseleak
func (s *FileSink) WriteToken(token string) error {
	tmp, err := os.CreateTemp(s.dir, ".token-*")
	if err != nil {
		return err
	}
	if err := os.Chown(tmp.Name(), s.uid, s.gid); err != nil {
		return fmt.Errorf("change ownership of %s: %w", tmp.Name(), err)
	}
	if _, err := tmp.WriteString(token); err != nil {
		return errors.Join(fmt.Errorf("write token: %w", err), tmp.Close())
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// WriteTokenClosed closes the temp file on the chown error path as well.
// ok: leaseleak
func (s *FileSink) WriteTokenClosed(token string) error {
	tmp, err := os.CreateTemp(s.dir, ".token-*")
	if err != nil {
		return err
	}
	if err := os.Chown(tmp.Name(), s.uid, s.gid); err != nil {
		return errors.Join(fmt.Errorf("change ownership of %s: %w", tmp.Name(), err), tmp.Close())
	}
	if _, err := tmp.WriteString(token); err != nil {
		return errors.Join(fmt.Errorf("write token: %w", err), tmp.Close())
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

var (
	// ErrFileRequired is returned when the upload path names a directory.
	ErrFileRequired = errors.New("upload: file required")
	// ErrFileEmpty is returned for an empty upload.
	ErrFileEmpty = errors.New("upload: file is empty")
)

// UploadFile is an opened upload source; Close releases it.
type UploadFile struct {
	f    *os.File
	size int64
}

// Close closes the underlying file.
// ok: leaseleak
func (u *UploadFile) Close() error {
	return u.f.Close()
}

// OpenUpload opens name and validates it. os.Open succeeds on a directory, and the IsDir branch
// returns without closing the descriptor, so every request naming a directory leaks one.
// From: 0gfoundation/0g-storage-client#162
// bug: leaseleak
func OpenUpload(name string) (*UploadFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if info.IsDir() {
		return nil, ErrFileRequired
	}
	if info.Size() == 0 {
		f.Close()
		return nil, ErrFileEmpty
	}
	return &UploadFile{f: f, size: info.Size()}, nil
}

// OpenUploadClosed closes the file on every validation failure; on success ownership passes to the
// returned UploadFile.
// ok: leaseleak
func OpenUploadClosed(name string) (*UploadFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if info.IsDir() {
		f.Close()
		return nil, ErrFileRequired
	}
	if info.Size() == 0 {
		f.Close()
		return nil, ErrFileEmpty
	}
	return &UploadFile{f: f, size: info.Size()}, nil
}
