// Package flow answers control-flow questions about the functions of a
// package, on the graphs x/tools' ctrlflow builds once per package.
//
// # Analyzer flow
//
// flow: answer path queries on the control-flow graphs of a package's functions
//
// flow reports nothing. Its result, a *Result, gives for each function
// declaration or literal a *Graph that the checks ask instead of reasoning
// from source order:
//
//   - Locate: the point of the graph (block and node) holding a syntax node,
//     found by a binary search over an index built once per function;
//   - ExitAvoiding and OnEveryPath: does some path from a point reach a
//     normal exit of the function (a return, or the end of a function
//     without results) without passing a node that satisfies a predicate;
//     equivalently, does the predicate hold on every path. Paths that end in
//     a panic or in a call that never returns (ctrlflow's noReturn facts,
//     and analysisutil.NoReturn for interface methods such as a logger's
//     Fatalf) are not exits, and neither is a select that blocks forever;
//   - LoopHead, LoopBlocks and CycleAvoiding: the head of a for or range
//     statement, the blocks of its natural loop (those on a cycle through
//     the head), and an iteration (a path from the head back to it) that
//     avoids a set of blocks and passes another: "can the loop go round
//     without looking at its context";
//   - Reaches: does some path from a point reach a node that satisfies a
//     predicate, without passing a node that satisfies another;
//   - DefsReaching and DefValue: the reaching definitions of a local
//     variable at a node (the assignments, declarations, range clauses and
//     select receives from which some path gets there without another
//     assignment of it, and whether the value on entry does), and what each
//     assigns: "which errors can this return give back". Unknown when the
//     variable's address is taken or a function literal assigns it.
//
// Predicates see the graph's nodes: statements and expressions at the top
// level of a block (an if statement's condition, an assignment, a return),
// not the bodies of function literals in them; Mentions walks one node the
// same way. A range loop's head is entered by taking the next element of
// the operand, so a predicate sees the operand there (the receive of `for v
// := range ch`); a select case's communication is seen where the case is
// taken, at the entry of its body, not in the block before the select where
// go/cfg evaluates it (Graph.NodesOf).
package flow
