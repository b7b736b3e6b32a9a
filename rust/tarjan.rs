//! Tarjan's strongly connected components, iterative (an explicit call stack, no recursion),
//! so graphs of any depth are analysed completely.

use crate::graph::{Csr, NodeId};

const UNVISITED: u32 = u32::MAX;

/// Strongly connected components of `g`.
///
/// Returns `(members, offsets)`: component `k` is `members[offsets[k]..offsets[k + 1]]`.
/// Components come in Tarjan's pop order (reverse topological order of the condensation);
/// members of a component in stack-pop order. Every node is in exactly one component.
pub fn tarjan_scc(g: &Csr) -> (Vec<NodeId>, Vec<u32>) {
    let n = g.node_count();
    let (offsets_in, targets) = g.raw();
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<NodeId> = Vec::new();
    // Call stack frames: (node, next edge position in `targets`).
    let mut calls: Vec<(NodeId, u32)> = Vec::new();
    let mut members = Vec::with_capacity(n);
    let mut offsets = vec![0u32];
    let mut next_index = 0u32;

    for root in 0..n as NodeId {
        if index[root as usize] != UNVISITED {
            continue;
        }
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        calls.push((root, offsets_in[root as usize]));

        while let Some(&mut (u, ref mut edge)) = calls.last_mut() {
            let end = offsets_in[u as usize + 1];
            let mut descended = false;
            while *edge < end {
                let v = targets[*edge as usize];
                *edge += 1;
                let vi = index[v as usize];
                if vi == UNVISITED {
                    index[v as usize] = next_index;
                    low[v as usize] = next_index;
                    next_index += 1;
                    stack.push(v);
                    on_stack[v as usize] = true;
                    calls.push((v, offsets_in[v as usize]));
                    descended = true;
                    break;
                } else if on_stack[v as usize] && vi < low[u as usize] {
                    low[u as usize] = vi;
                }
            }
            if descended {
                continue;
            }
            // All edges of u done: pop the frame, maybe emit a component, update the parent.
            calls.pop();
            let lu = low[u as usize];
            if lu == index[u as usize] {
                loop {
                    let w = stack.pop().expect("u is on the stack");
                    on_stack[w as usize] = false;
                    members.push(w);
                    if w == u {
                        break;
                    }
                }
                offsets.push(members.len() as u32);
            }
            if let Some(&(p, _)) = calls.last() {
                if lu < low[p as usize] {
                    low[p as usize] = lu;
                }
            }
        }
    }
    (members, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sccs(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let pairs: Vec<u32> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
        let g = Csr::from_pairs(n, &pairs).expect("valid");
        let (m, o) = tarjan_scc(&g);
        o.windows(2)
            .map(|w| m[w[0] as usize..w[1] as usize].to_vec())
            .collect()
    }

    #[test]
    fn finds_components_in_pop_order() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 4 -> 3
        let got = sccs(5, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3)]);
        assert_eq!(got, vec![vec![4, 3], vec![2, 1, 0]]);
    }

    #[test]
    fn singletons_and_self_loops() {
        let got = sccs(3, &[(0, 0), (1, 2)]);
        assert_eq!(got, vec![vec![0], vec![2], vec![1]]);
    }

    #[test]
    fn deep_chain_does_not_recurse() {
        let n = 200_000u32;
        let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        edges.push((n - 1, 0));
        let got = sccs(n as usize, &edges);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].len(), n as usize);
    }
}
