// Package pool is a user library whose connections must be returned.
package pool

type Pool struct{}

type Conn struct{}

func (c *Conn) Query(q string) error { return nil }
func (c *Conn) Put()                 {}

func (p *Pool) Get() (*Conn, error) { return &Conn{}, nil }

func Borrow() *Conn { return &Conn{} }
