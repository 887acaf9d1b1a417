package flow

import (
	_ "embed"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

//go:embed doc.go
var doc string

// Analyzer gives the path queries of a package's functions. Its result is
// a *Result; it reports nothing and exports no facts.
var Analyzer = &analysis.Analyzer{
	Name:       "flow",
	Doc:        analysisutil.MustExtractDoc(doc, "flow"),
	URL:        "https://github.com/cancelcheck/cancelcheck/tree/main/passes/flow",
	Requires:   []*analysis.Analyzer{ctrlflow.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run: func(pass *analysis.Pass) (any, error) {
		return &Result{
			info:   pass.TypesInfo,
			cfgs:   pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs),
			graphs: map[ast.Node]*Graph{},
		}, nil
	},
}

// Result hands out the graph of each function. It is safe for concurrent
// use by the checks that require the pass.
type Result struct {
	info *types.Info
	cfgs *ctrlflow.CFGs

	mu     sync.Mutex
	graphs map[ast.Node]*Graph
}

// Func returns the graph of fn, an *ast.FuncDecl or *ast.FuncLit, or nil
// when fn has no body.
func (r *Result) Func(fn ast.Node) *Graph {
	r.mu.Lock()
	defer r.mu.Unlock()
	if g, ok := r.graphs[fn]; ok {
		return g
	}
	var g *Graph
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		if c := r.cfgs.FuncDecl(fn); c != nil && fn.Body != nil {
			g = &Graph{CFG: c, Body: fn.Body, typ: fn.Type, retOnly: hasResults(fn.Type)}
		}
	case *ast.FuncLit:
		if c := r.cfgs.FuncLit(fn); c != nil {
			g = &Graph{CFG: c, Body: fn.Body, typ: fn.Type, retOnly: hasResults(fn.Type)}
		}
	}
	if g != nil {
		g.info = r.info
		g.cfgs = r.cfgs
		// The block before `select {}` has no successors, like the end of
		// the body: in a function that blocks so, only returns end it.
		g.retOnly = g.retOnly || Mentions(g.Body, func(n ast.Node) bool {
			s, ok := n.(*ast.SelectStmt)
			return ok && len(s.Body.List) == 0
		})
	}
	r.graphs[fn] = g
	return g
}

func hasResults(t *ast.FuncType) bool { return t.Results != nil && len(t.Results.List) > 0 }

// Graph is the control-flow graph of one function with its path queries.
type Graph struct {
	CFG  *cfg.CFG
	Body *ast.BlockStmt

	info    *types.Info
	typ     *ast.FuncType
	cfgs    *ctrlflow.CFGs
	retOnly bool // only return statements end the function normally

	once  sync.Once
	index []Point // top-level nodes of live blocks, by position

	commOnce sync.Once
	comms    map[ast.Node]bool // communications of select cases
}

// Point is a place in the graph: just before node Index of Block (Index may
// be len(Block.Nodes), the block's end). Index -1 stands for the event
// that enters the block: at the head of a range loop, taking the next
// element of the range statement's operand; at the body of a select case,
// the case's communication (see NodesOf).
type Point struct {
	Block *cfg.Block
	Index int
}

// Valid reports whether p is a point of a graph.
func (p Point) Valid() bool { return p.Block != nil }

// Node returns the node at p, or nil at the block's end.
func (p Point) Node() ast.Node {
	switch {
	case p.Block == nil || p.Index >= len(p.Block.Nodes):
		return nil
	case p.Index < 0:
		return entryNode(p.Block)
	}
	return p.Block.Nodes[p.Index]
}

// Next returns the point after p's node.
func (p Point) Next() Point { return Point{p.Block, p.Index + 1} }

// Entry returns the point before the function's first node.
func (g *Graph) Entry() Point { return Point{g.CFG.Blocks[0], 0} }

func (g *Graph) buildIndex() {
	for _, b := range g.CFG.Blocks {
		if !b.Live {
			continue
		}
		for i := range b.Nodes {
			g.index = append(g.index, Point{b, i})
		}
	}
	sort.Slice(g.index, func(i, j int) bool {
		return g.index[i].Node().Pos() < g.index[j].Node().Pos()
	})
}

// Locate returns the point of the top-level node that contains n (a
// statement of a block, or the condition of an if, for or switch holding
// it). It is false for nodes in unreachable code and for nodes the graph
// does not hold (a function literal's body).
func (g *Graph) Locate(n ast.Node) (Point, bool) {
	g.once.Do(g.buildIndex)
	pos := n.Pos()
	// The last node starting at or before pos that contains it. Top-level
	// nodes are disjoint but for one case: the comm `x := <-ch` of a select
	// is a node before the select, and its x again a node of the case body.
	// So look at the last two candidates.
	i := sort.Search(len(g.index), func(i int) bool { return g.index[i].Node().Pos() > pos })
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		m := g.index[j].Node()
		if m.Pos() <= pos && n.End() <= m.End() {
			if _, lit := m.(*ast.FuncLit); !lit && inLiteral(m, n) {
				return Point{}, false
			}
			return g.index[j], true
		}
	}
	return Point{}, false
}

// inLiteral reports whether n lies inside a function literal within m: the
// literal's body is another graph.
func inLiteral(m, n ast.Node) bool {
	found := false
	ast.Inspect(m, func(x ast.Node) bool {
		if found || x == nil || x.Pos() > n.Pos() || x.End() < n.End() {
			return false
		}
		if lit, ok := x.(*ast.FuncLit); ok && lit.Body.Pos() <= n.Pos() && n.End() <= lit.Body.End() {
			found = true
			return false
		}
		return true
	})
	return found
}

// entryNode returns the node standing for the event that enters b, or
// nil: the operand of a range statement at its head, the communication of
// a select case at its body.
func entryNode(b *cfg.Block) ast.Node {
	switch s := b.Stmt.(type) {
	case *ast.RangeStmt:
		if b.Kind == cfg.KindRangeLoop {
			return s.X
		}
	case *ast.CommClause:
		if b.Kind == cfg.KindSelectCaseBody {
			return s.Comm
		}
	}
	return nil
}

// NodesOf returns the nodes of b as the path queries see them, in order:
// the event entering b (the range operand at a range loop's head, standing
// for taking its next element; a select case's communication at the case's
// body, where it happens), then b's nodes, less the communications of a
// select that go/cfg places in the block before it.
func (g *Graph) NodesOf(b *cfg.Block) []ast.Node {
	var out []ast.Node
	if n := entryNode(b); n != nil {
		out = append(out, n)
	}
	for _, n := range b.Nodes {
		if !g.isComm(n) {
			out = append(out, n)
		}
	}
	return out
}

// isComm reports whether n is the communication of a select case.
func (g *Graph) isComm(n ast.Node) bool {
	g.commOnce.Do(func() {
		g.comms = map[ast.Node]bool{}
		ast.Inspect(g.Body, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CommClause:
				if m.Comm != nil {
					g.comms[m.Comm] = true
				}
			}
			return true
		})
	})
	return g.comms[n]
}

// Exit is a normal end of the function.
type Exit struct {
	Block *cfg.Block
	// Return is the return statement. At the end of the body it is the
	// implicit return the CFG adds, at the closing brace (Return.Return ==
	// Body.Rbrace); nil only for graphs built without one.
	Return *ast.ReturnStmt
}

// Pos returns the position of the exit: the return, or the closing brace.
func (e Exit) Pos(body *ast.BlockStmt) token.Pos {
	if e.Return != nil {
		return e.Return.Pos()
	}
	return body.Rbrace
}

// IsExit reports whether b ends the function normally: it has no
// successors, does not end in a panic or a call that never returns, and is
// not the block after the last case of a select without default (the
// select blocks there; a default arm's return is an exit). In a function with results, or one that blocks in
// `select {}`, only a return statement ends it.
func (g *Graph) IsExit(b *cfg.Block) (Exit, bool) {
	if len(b.Succs) > 0 || !b.Live {
		return Exit{}, false
	}
	var last ast.Node
	if len(b.Nodes) > 0 {
		last = b.Nodes[len(b.Nodes)-1]
	}
	switch last := last.(type) {
	case *ast.ReturnStmt:
		return Exit{Block: b, Return: last}, true
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(last.X).(*ast.CallExpr); ok && g.NoReturn(call) {
			return Exit{}, false
		}
	}
	if g.retOnly || b.Kind == cfg.KindSelectAfterCase {
		// After the last case of a select without default nothing runs:
		// the select blocks. (A default arm's body lives in that block; a
		// return there ended it above.)
		return Exit{}, false
	}
	return Exit{Block: b}, true
}

// NoReturn reports whether call never returns: panic, a function with
// ctrlflow's noReturn fact, or a call analysisutil.NoReturn knows (a
// logger's Fatalf through an interface).
func (g *Graph) NoReturn(call *ast.CallExpr) bool {
	if analysisutil.NoReturn(g.info, call) {
		return true
	}
	fn := analysisutil.Callee(g.info, call)
	return fn != nil && g.cfgs.NoReturn(fn)
}

// ExitAvoiding returns an exit reached from p on a path that passes no node
// satisfying stop (p's own node included); false when every path to an exit
// passes one.
func (g *Graph) ExitAvoiding(p Point, stop func(ast.Node) bool) (Exit, bool) {
	return g.ExitAvoidingEdges(p, stop, nil)
}

// ExitAvoidingEdges is ExitAvoiding on the paths that follow only edges
// for which edge holds (a block and the index of one of its successors;
// nil follows every edge), so that a caller can rule out a branch that
// cannot be taken in the case it asks about.
func (g *Graph) ExitAvoidingEdges(p Point, stop func(ast.Node) bool, edge func(*cfg.Block, int) bool) (Exit, bool) {
	var found Exit
	ok := g.walk(p, func(q Point) (bool, bool) { return false, stop(q.Node()) }, func(b *cfg.Block) bool {
		if e, ok := g.IsExit(b); ok {
			found = e
			return true
		}
		return false
	}, edge)
	return found, ok
}

// OnEveryPath reports whether every path from p to a normal exit passes a
// node satisfying event. A deferred event counts from the defer statement
// on: give a predicate that matches the DeferStmt.
func (g *Graph) OnEveryPath(p Point, event func(ast.Node) bool) bool {
	_, ok := g.ExitAvoiding(p, event)
	return !ok
}

// Reaches returns the first point, on some path from p that passes no node
// satisfying stop, whose node satisfies target.
func (g *Graph) Reaches(p Point, target, stop func(ast.Node) bool) (Point, bool) {
	return g.ReachesEdges(p, target, stop, nil)
}

// ReachesEdges is Reaches on the paths that follow only edges for which
// edge holds (nil: every edge).
func (g *Graph) ReachesEdges(p Point, target, stop func(ast.Node) bool, edge func(*cfg.Block, int) bool) (Point, bool) {
	var found Point
	ok := g.walk(p, func(q Point) (halt, prune bool) {
		n := q.Node()
		if target(n) {
			found = q
			return true, true
		}
		return false, stop != nil && stop(n)
	}, nil, edge)
	return found, ok
}

// ReachesBlock reports whether some path from p enters the block target
// (a loop head: whether control can go round again).
func (g *Graph) ReachesBlock(p Point, target *cfg.Block) bool {
	return g.walk(p, func(q Point) (halt, prune bool) { return q.Block == target && q != p, false },
		func(b *cfg.Block) bool { return b == target && b != p.Block }, nil)
}

// walk visits the nodes reachable from p in depth-first order, following
// the edges for which edge holds (all when nil); visit may halt the walk or
// prune the path at a node; atEnd is asked, after a block's last node was
// passed, whether the walk is over.
func (g *Graph) walk(p Point, visit func(Point) (halt, prune bool), atEnd func(*cfg.Block) bool, edge func(*cfg.Block, int) bool) bool {
	seen := make([]bool, len(g.CFG.Blocks))
	type item struct {
		b *cfg.Block
		i int
	}
	stack := []item{{p.Block, p.Index}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.i == 0 {
			if seen[it.b.Index] {
				continue
			}
			seen[it.b.Index] = true
		}
		pruned := false
		nodes := it.b.Nodes
		if it.i == 0 && entryNode(it.b) != nil {
			if halt, prune := visit(Point{it.b, -1}); halt {
				return true
			} else if prune {
				continue
			}
		}
		for i := it.i; i < len(nodes); i++ {
			if g.isComm(nodes[i]) {
				continue // it happens at its case's body
			}
			halt, prune := visit(Point{it.b, i})
			if halt {
				return true
			}
			if prune {
				pruned = true
				break
			}
		}
		if pruned {
			continue
		}
		if atEnd != nil && atEnd(it.b) {
			return true
		}
		for j := len(it.b.Succs) - 1; j >= 0; j-- {
			if edge == nil || edge(it.b, j) {
				stack = append(stack, item{it.b.Succs[j], 0})
			}
		}
	}
	return false
}

// LoopHead returns the block at which each round of loop (a *ast.ForStmt or
// *ast.RangeStmt) begins: the target of its back edge.
func (g *Graph) LoopHead(loop ast.Stmt) *cfg.Block {
	var body *cfg.Block
	for _, b := range g.CFG.Blocks {
		if b.Stmt != loop {
			continue
		}
		switch b.Kind {
		case cfg.KindForLoop, cfg.KindRangeLoop:
			return b
		case cfg.KindForBody:
			body = b // for {} and for ; ; post {}: the body is the head
		}
	}
	return body
}

// LoopDone returns the point where control goes on after loop (a
// *ast.ForStmt or *ast.RangeStmt) ends normally, by its condition, the end
// of its range or a break; false when nothing follows it that way (a for
// {} without a break).
func (g *Graph) LoopDone(loop ast.Stmt) (Point, bool) {
	for _, b := range g.CFG.Blocks {
		if b.Stmt == loop && (b.Kind == cfg.KindForDone || b.Kind == cfg.KindRangeDone) && b.Live {
			return Point{b, 0}, true
		}
	}
	return Point{}, false
}

// LoopBlocks returns the blocks of the natural loop of head: those on some
// cycle through it (reachable from head, and reaching it).
func (g *Graph) LoopBlocks(head *cfg.Block) []bool {
	n := len(g.CFG.Blocks)
	fwd := make([]bool, n)
	stack := []*cfg.Block{head}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range b.Succs {
			if !fwd[s.Index] {
				fwd[s.Index] = true
				stack = append(stack, s)
			}
		}
	}
	// Backward from head, over predecessors, within fwd.
	preds := make([][]*cfg.Block, n)
	for _, b := range g.CFG.Blocks {
		for _, s := range b.Succs {
			preds[s.Index] = append(preds[s.Index], b)
		}
	}
	in := make([]bool, n)
	if !fwd[head.Index] {
		return in // no cycle through head
	}
	in[head.Index] = true
	stack = append(stack[:0], head)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range preds[b.Index] {
			if fwd[p.Index] && !in[p.Index] {
				in[p.Index] = true
				stack = append(stack, p)
			}
		}
	}
	return in
}

// CycleAvoiding returns a round of the loop at head, a path from head back
// to it, that enters no block for which avoid holds and passes at least one
// for which need holds (need may be nil), following only the edges for
// which edge holds (edge may be nil: every edge; it is given a block and
// the index of one of its successors, so that a caller can rule out the
// branch of a condition that cannot be taken in the case it asks about).
// Head itself is judged too: an avoided head admits no round.
func (g *Graph) CycleAvoiding(head *cfg.Block, avoid, need func(*cfg.Block) bool, edge func(*cfg.Block, int) bool) ([]*cfg.Block, bool) {
	if avoid(head) {
		return nil, false
	}
	n := len(g.CFG.Blocks)
	// States: (block, passed a needed block).
	seen := make([]bool, 2*n)
	parent := make([]int, 2*n)
	startHas := need == nil || need(head)
	start := int(head.Index)*2 + b2i(startHas)
	seen[start] = true
	parent[start] = -1
	queue := []int{start}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		b := g.CFG.Blocks[s/2]
		has := s%2 == 1
		for i, succ := range b.Succs {
			if edge != nil && !edge(b, i) {
				continue
			}
			if succ == head {
				if has {
					return g.path(parent, s), true
				}
				continue
			}
			if avoid(succ) {
				continue
			}
			t := int(succ.Index)*2 + b2i(has || need(succ))
			if !seen[t] {
				seen[t] = true
				parent[t] = s
				queue = append(queue, t)
			}
		}
	}
	return nil, false
}

func (g *Graph) path(parent []int, s int) []*cfg.Block {
	var out []*cfg.Block
	for ; s >= 0; s = parent[s] {
		out = append(out, g.CFG.Blocks[s/2])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Mentions reports whether pred holds for n or a node inside it, not
// entering function literals (their bodies run elsewhere, or later).
func Mentions(n ast.Node, pred func(ast.Node) bool) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if found || m == nil {
			return false
		}
		if _, ok := m.(*ast.FuncLit); ok {
			return false
		}
		if pred(m) {
			found = true
		}
		return !found
	})
	return found
}
