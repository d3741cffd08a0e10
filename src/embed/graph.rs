//! Load-time graph surgery on the ONNX protobuf, before tract parses it (the shipped model file stays
//! the upstream one).
//!
//! 1. Gather embedding rows *before* dequantizing them. The int8 export stores each weight `W` as
//!    `Mul(Cast<f32>(W_q), scale)` followed by its consumer. For the word-embedding table the consumer
//!    is `Gather(W, input_ids)`, so as exported every call first dequantizes all 30522×384 rows (47 MB
//!    of f32) to then keep a dozen: tract folds constant subgraphs only up to 4 MiB, so the
//!    dequantization is not precomputed either. Rewriting
//!
//!    ```text
//!      Gather(Mul(Cast(W_q), s), ids)   →   Mul(Cast(Gather(W_q, ids)), Gather(s, ids))
//!    ```
//!
//!    gives bit-identical values (each element is still `f32(q) * s_row`) while touching only the rows
//!    used. `s` may be per-row (`[rows, 1]`, gathered alongside) or per-tensor (a scalar or `[1]`).
//! 2. Route linear layers to the integer product ([`route_int8_matmuls`]).

use std::collections::{HashMap, HashSet};

use tract_onnx::pb::{attribute_proto::AttributeType, tensor_proto::DataType, AttributeProto, GraphProto, NodeProto, TensorProto};

/// Applies the rewrite to every matching `Gather`; returns how many tables were rewritten.
pub(crate) fn gather_before_dequantize(graph: &mut GraphProto) -> usize {
    let inits: HashMap<&str, (i32, &[i64])> = graph.initializer.iter().map(|t| (t.name.as_str(), (t.data_type, t.dims.as_slice()))).collect();
    let producer: HashMap<&str, usize> = graph.node.iter().enumerate().flat_map(|(i, n)| n.output.iter().map(move |o| (o.as_str(), i))).collect();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for name in graph.node.iter().flat_map(|n| n.input.iter()).chain(graph.output.iter().map(|o| &o.name)) {
        *uses.entry(name.as_str()).or_default() += 1;
    }
    let used_once = |name: &str| uses.get(name).copied() == Some(1);

    // (index of the Gather, index of the Cast, index of the Mul, replacement nodes)
    let mut plans: Vec<(usize, usize, usize, Vec<NodeProto>)> = Vec::new();
    for (gi, gather) in graph.node.iter().enumerate() {
        if gather.op_type != "Gather" || !gather.domain.is_empty() || gather.input.len() != 2 || gather.output.len() != 1 {
            continue;
        }
        if int_attr(gather, "axis").unwrap_or(0) != 0 || !used_once(&gather.input[0]) {
            continue;
        }
        let Some(&mi) = producer.get(gather.input[0].as_str()) else { continue };
        let mul = &graph.node[mi];
        if mul.op_type != "Mul" || !mul.domain.is_empty() || mul.input.len() != 2 {
            continue;
        }
        // Which Mul operand is the Cast of an int8 table, and which is the scale.
        let Some((cast_slot, ci)) = (0..2).find_map(|slot| {
            let &ci = producer.get(mul.input[slot].as_str())?;
            let cast = &graph.node[ci];
            (cast.op_type == "Cast" && cast.domain.is_empty() && cast.input.len() == 1 && used_once(&mul.input[slot])).then_some((slot, ci))
        }) else {
            continue;
        };
        let cast = &graph.node[ci];
        if int_attr(cast, "to") != Some(DataType::Float as i64) {
            continue;
        }
        let Some(&(q_type, q_dims)) = inits.get(cast.input[0].as_str()) else { continue };
        if !(q_type == DataType::Int8 as i32 || q_type == DataType::Uint8 as i32) || q_dims.len() != 2 {
            continue;
        }
        let scale_name = &mul.input[1 - cast_slot];
        let Some(&(s_type, s_dims)) = inits.get(scale_name.as_str()) else { continue };
        if s_type != DataType::Float as i32 {
            continue;
        }
        let per_row = s_dims == [q_dims[0], 1];
        let per_tensor = s_dims.iter().product::<i64>() == 1;
        if !per_row && !per_tensor {
            continue;
        }

        let out = &gather.output[0];
        let ids = &gather.input[1];
        let rows_q = format!("{out}__gather_first_q");
        let rows_f = format!("{out}__gather_first_f");
        let mut nodes = vec![
            node("Gather", &format!("{out}__gather_first_gather"), &[&cast.input[0], ids], &rows_q, Some(int("axis", 0))),
            node("Cast", &format!("{out}__gather_first_cast"), &[&rows_q], &rows_f, Some(int("to", DataType::Float as i64))),
        ];
        let scale = if per_row {
            let rows_s = format!("{out}__gather_first_scale");
            nodes.push(node("Gather", &format!("{out}__gather_first_gather_scale"), &[scale_name, ids], &rows_s, Some(int("axis", 0))));
            rows_s
        } else {
            scale_name.clone()
        };
        // Keep the original operand order of the Mul.
        let operands: [&str; 2] = if cast_slot == 0 { [&rows_f, &scale] } else { [&scale, &rows_f] };
        nodes.push(node("Mul", &format!("{out}__gather_first_mul"), &operands, out, None));
        plans.push((gi, ci, mi, nodes));
    }

    let count = plans.len();
    if count == 0 {
        return 0;
    }
    let mut dropped_values: Vec<String> = Vec::new();
    let mut replace: HashMap<usize, Vec<NodeProto>> = HashMap::new();
    let mut drop: Vec<usize> = Vec::new();
    for (gi, ci, mi, nodes) in plans {
        dropped_values.extend(graph.node[ci].output.iter().cloned());
        dropped_values.extend(graph.node[mi].output.iter().cloned());
        drop.extend([ci, mi]);
        replace.insert(gi, nodes);
    }
    let old = std::mem::take(&mut graph.node);
    for (i, n) in old.into_iter().enumerate() {
        if let Some(new_nodes) = replace.remove(&i) {
            graph.node.extend(new_nodes);
        } else if !drop.contains(&i) {
            graph.node.push(n);
        }
    }
    // Shape annotations of the values that no longer exist would only confuse the importer.
    graph.value_info.retain(|v| !dropped_values.contains(&v.name));
    count
}

/// The op type [`route_int8_matmuls`] gives the rewritten products; `int8_op` registers it with tract.
pub(crate) const INT8_MATMUL: &str = "EngramInt8MatMul";

/// Rewrites every linear layer of the int8 form
///
/// ```text
///   MatMul(x, Mul(Cast<f32>(W_q), s))   →   EngramInt8MatMul(x, W_q, s)
/// ```
///
/// where `W_q` is an int8 `[k, n]` initializer and `s` an f32 initializer with one scale per column (or
/// one for all), then drops the `Mul` and `Cast` nodes nothing reads any more. Returns how many products
/// were rewritten. Left as exported, tract folds each `f32(W_q) · s` into an f32 constant at load (four
/// times the int8 bytes, and transient copies on the way); rewritten, the int8 values go straight to the
/// integer kernel (see `int8_matmul`).
pub(crate) fn route_int8_matmuls(graph: &mut GraphProto) -> usize {
    let inits: HashMap<&str, &TensorProto> = graph.initializer.iter().map(|t| (t.name.as_str(), t)).collect();
    let producer: HashMap<&str, usize> = graph.node.iter().enumerate().flat_map(|(i, n)| n.output.iter().map(move |o| (o.as_str(), i))).collect();
    let mut rewrites: Vec<(usize, [String; 3], [usize; 2])> = Vec::new();
    for (at, matmul) in graph.node.iter().enumerate() {
        if matmul.op_type != "MatMul" || !matmul.domain.is_empty() || matmul.input.len() != 2 {
            continue;
        }
        let Some(&mul_at) = producer.get(matmul.input[1].as_str()) else { continue };
        let mul = &graph.node[mul_at];
        if mul.op_type != "Mul" || !mul.domain.is_empty() || mul.input.len() != 2 {
            continue;
        }
        let found = (0..2).find_map(|slot| {
            let &cast_at = producer.get(mul.input[slot].as_str())?;
            let cast = &graph.node[cast_at];
            let to_f32 = int_attr(cast, "to") == Some(DataType::Float as i64);
            if cast.op_type != "Cast" || !cast.domain.is_empty() || !to_f32 || cast.input.len() != 1 {
                return None;
            }
            let (q, s) = (inits.get(cast.input[0].as_str())?, inits.get(mul.input[1 - slot].as_str())?);
            is_int8_weight(q, s).then(|| ([q.name.clone(), s.name.clone()], cast_at))
        });
        if let Some(([q, s], cast_at)) = found {
            rewrites.push((at, [matmul.input[0].clone(), q, s], [mul_at, cast_at]));
        }
    }
    let mut bypassed = Vec::new();
    for (at, inputs, producers) in &rewrites {
        let node = &mut graph.node[*at];
        node.op_type = INT8_MATMUL.into();
        node.input = inputs.to_vec();
        bypassed.extend_from_slice(producers);
    }
    drop_unread(graph, &bypassed);
    rewrites.len()
}

/// Whether `q` is an int8 `[k, n]` matrix and `s` holds one f32 scale per column of it (as `[n]` or
/// `[1, n]`) or one for all, with data to match.
fn is_int8_weight(q: &TensorProto, s: &TensorProto) -> bool {
    if q.data_type != DataType::Int8 as i32 || s.data_type != DataType::Float as i32 || q.dims.len() != 2 {
        return false;
    }
    let (k, n) = (q.dims[0], q.dims[1]);
    let q_len = if q.raw_data.is_empty() { q.int32_data.len() } else { q.raw_data.len() };
    let s_len = if s.raw_data.is_empty() { s.float_data.len() } else { s.raw_data.len() / 4 };
    let per_column = s.dims.last() == Some(&n) && s.dims.iter().rev().skip(1).all(|&d| d == 1);
    let per_tensor = s.dims.iter().all(|&d| d == 1);
    k > 0 && n > 0 && k.checked_mul(n) == i64::try_from(q_len).ok() && (per_column || per_tensor) && i64::try_from(s_len).ok() == Some(s.dims.iter().product())
}

/// Removes the candidate nodes whose outputs no node and no graph output reads, repeating until none is
/// left, so a `Cast` freed by removing its `Mul` goes too.
fn drop_unread(graph: &mut GraphProto, candidates: &[usize]) {
    let mut doomed = vec![false; graph.node.len()];
    loop {
        let live = graph.node.iter().enumerate().filter(|(i, _)| !doomed[*i]);
        let read: HashSet<&str> = live.flat_map(|(_, n)| n.input.iter()).chain(graph.output.iter().map(|o| &o.name)).map(String::as_str).collect();
        let newly: Vec<usize> = candidates.iter().copied().filter(|&i| !doomed[i] && graph.node[i].output.iter().all(|o| !read.contains(o.as_str()))).collect();
        if newly.is_empty() {
            break;
        }
        for i in newly {
            doomed[i] = true;
        }
    }
    let mut index = 0;
    graph.node.retain(|_| {
        index += 1;
        !doomed[index - 1]
    });
}

fn int_attr(node: &NodeProto, name: &str) -> Option<i64> {
    node.attribute.iter().find(|a| a.name == name).map(|a| a.i)
}

fn int(name: &str, value: i64) -> AttributeProto {
    AttributeProto { name: name.into(), r#type: AttributeType::Int as i32, i: value, ..Default::default() }
}

fn node(op: &str, name: &str, inputs: &[&str], output: &str, attr: Option<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        name: name.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.to_string()],
        attribute: attr.into_iter().collect(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tract_onnx::pb::{
        tensor_shape_proto::{dimension, Dimension},
        type_proto, ModelProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
    };
    use tract_onnx::prelude::*;

    const ROWS: i64 = 7;
    const COLS: i64 = 3;

    fn int64_input(name: &str, len: i64) -> ValueInfoProto {
        let dim = Dimension { value: Some(dimension::Value::DimValue(len)), ..Default::default() };
        let tensor = type_proto::Tensor { elem_type: DataType::Int64 as i32, shape: Some(TensorShapeProto { dim: vec![dim] }) };
        ValueInfoProto { name: name.into(), r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(tensor)), ..Default::default() }), ..Default::default() }
    }

    /// `out = Gather(Mul(Cast(q), scale), ids)` with an int8 table, as the int8 export writes it.
    fn dequantize_then_gather(scale_dims: Vec<i64>) -> ModelProto {
        let q: Vec<u8> = (0..ROWS * COLS).map(|i| ((i * 37) % 255 - 127) as i8 as u8).collect();
        let n_scales = scale_dims.iter().product::<i64>();
        let scales: Vec<f32> = (0..n_scales).map(|i| 0.013 + 0.007 * i as f32).collect();
        let graph = GraphProto {
            node: vec![
                node("Cast", "cast", &["q"], "q_f", Some(int("to", DataType::Float as i64))),
                node("Mul", "mul", &["q_f", "scale"], "table", None),
                node("Gather", "gather", &["table", "ids"], "out", Some(int("axis", 0))),
            ],
            initializer: vec![
                TensorProto { name: "q".into(), dims: vec![ROWS, COLS], data_type: DataType::Int8 as i32, raw_data: q, ..Default::default() },
                TensorProto { name: "scale".into(), dims: scale_dims, data_type: DataType::Float as i32, float_data: scales, ..Default::default() },
            ],
            input: vec![int64_input("ids", 4)],
            output: vec![ValueInfoProto { name: "out".into(), ..Default::default() }],
            ..Default::default()
        };
        ModelProto { ir_version: 8, opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 17 }], graph: Some(graph), ..Default::default() }
    }

    fn run(proto: &ModelProto) -> Vec<f32> {
        let plan = tract_onnx::onnx().model_for_proto_model(proto).unwrap().into_optimized().unwrap().into_runnable().unwrap();
        let ids = Tensor::from_shape::<i64>(&[4], &[3, 0, 6, 3]).unwrap();
        let out = plan.run(tvec![ids.into_tvalue()]).unwrap();
        out[0].try_as_plain_ram().unwrap().as_slice::<f32>().unwrap().to_vec()
    }

    #[test]
    fn rewrite_is_exact_for_per_row_and_per_tensor_scales() {
        for scale_dims in [vec![ROWS, 1], vec![], vec![1]] {
            let original = dequantize_then_gather(scale_dims.clone());
            let mut rewritten = original.clone();
            assert_eq!(gather_before_dequantize(rewritten.graph.as_mut().unwrap()), 1, "{scale_dims:?}");
            let ops: Vec<&str> = rewritten.graph.as_ref().unwrap().node.iter().map(|n| n.op_type.as_str()).collect();
            assert_eq!(ops[..2], ["Gather", "Cast"], "the int8 table is gathered, then cast: {ops:?}");
            assert_eq!(run(&original), run(&rewritten), "bit-identical for scale {scale_dims:?}");
        }
    }

    #[test]
    fn leaves_other_graphs_alone() {
        // A per-column scale ([1, COLS]) cannot be gathered by row: no rewrite.
        let mut proto = dequantize_then_gather(vec![1, COLS]);
        let before = proto.clone();
        assert_eq!(gather_before_dequantize(proto.graph.as_mut().unwrap()), 0);
        assert_eq!(proto, before);
    }
}
