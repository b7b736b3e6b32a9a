//! Graphs: `Digraph` in CSR form, BFS and Tarjan, and the edge-buffer reader.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Reads interleaved `(source, target)` u32 pairs from a buffer of u32 (e.g. a numpy
/// `uint32` array of shape `(E, 2)`) or of bytes (little-endian u32).
fn edge_pairs(py: Python<'_>, edges: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if edges.len().is_ok_and(|n| n == 0) && !edges.is_instance_of::<pyo3::types::PyString>() {
        // An empty `array.array` may expose an unaligned dummy pointer; nothing to read anyway.
        return Ok(Vec::new());
    }
    if let Ok(buf) = PyBuffer::<u32>::get(edges) {
        // PyO3 accepts an explicit byte order ('>I', '!I') as u32 but copies the raw bytes,
        // so a foreign-endian buffer would be read as different node ids.
        let foreign = if cfg!(target_endian = "little") {
            [b'>', b'!']
        } else {
            [b'<', b'<']
        };
        if buf
            .format()
            .to_bytes()
            .first()
            .is_some_and(|b| foreign.contains(b))
        {
            return Err(PyValueError::new_err(
                "edges: a u32 buffer in non-native byte order is not supported; convert it \
                 first (numpy: edges.astype(numpy.uint32))",
            ));
        }
        return buf.to_vec(py);
    }
    let buf = PyBuffer::<u8>::get(edges).map_err(|_| {
        PyValueError::new_err(
            "edges: must be a buffer of u32 values (aligned, native byte order: numpy \
             uint32, array.array('I')) or of little-endian bytes",
        )
    })?;
    let bytes = buf.to_vec(py)?;
    if bytes.len() % 4 != 0 {
        return Err(PyValueError::new_err(format!(
            "edges: bytes must hold whole little-endian u32 values, got {} bytes",
            bytes.len()
        )));
    }
    Ok(py.detach(|| {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }))
}

/// A frozen digraph in CSR form over nodes `0..node_count` (see `rust/graph.rs`).
#[pyclass(name = "Digraph", module = "crs._core", frozen)]
struct PyDigraph {
    inner: crate::graph::Csr,
}

#[pymethods]
impl PyDigraph {
    #[new]
    fn new(py: Python<'_>, node_count: usize, edges: &Bound<'_, PyAny>) -> PyResult<Self> {
        let pairs = edge_pairs(py, edges)?;
        let inner = py
            .detach(|| crate::graph::Csr::from_pairs(node_count, &pairs))
            .map_err(|e| {
                let arg = match e {
                    crate::graph::GraphError::TooLarge { .. }
                    | crate::graph::GraphError::OutOfMemory { .. } => "node_count",
                    _ => "edges",
                };
                PyValueError::new_err(format!("{arg}: {e}"))
            })?;
        Ok(Self { inner })
    }

    #[getter]
    fn node_count(&self) -> usize {
        self.inner.node_count()
    }

    #[getter]
    fn edge_count(&self) -> usize {
        self.inner.edge_count()
    }

    fn successors(&self, node: u32) -> PyResult<Vec<u32>> {
        self.check("node", node)?;
        Ok(self.inner.successors(node).to_vec())
    }

    /// The graph with every edge reversed.
    fn reversed(&self, py: Python<'_>) -> Self {
        Self {
            inner: py.detach(|| self.inner.reversed()),
        }
    }

    /// Strongly connected components in Tarjan's pop order (iterative, no recursion).
    fn tarjan_scc(&self, py: Python<'_>) -> Vec<Vec<u32>> {
        let (members, offsets) = py.detach(|| crate::tarjan::tarjan_scc(&self.inner));
        offsets
            .windows(2)
            .map(|w| members[w[0] as usize..w[1] as usize].to_vec())
            .collect()
    }

    /// Nodes within `max_depth` edges of `start` in BFS order, and their depths.
    fn bfs_within(
        &self,
        py: Python<'_>,
        start: u32,
        max_depth: u32,
    ) -> PyResult<(Vec<u32>, Vec<u32>)> {
        self.check("start", start)?;
        Ok(py.detach(|| crate::graph::csr_bfs_within(&self.inner, start, max_depth)))
    }
}

impl PyDigraph {
    fn check(&self, arg: &str, node: u32) -> PyResult<()> {
        if (node as usize) < self.inner.node_count() {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "{arg}: node {node} is out of range: node ids are 0..{}",
                self.inner.node_count()
            )))
        }
    }
}

pub(super) fn register_graph(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDigraph>()
}
