//! The tract operators behind [`route_int8_matmuls`](super::graph::route_int8_matmuls): the ONNX-level
//! `EngramInt8MatMul(x, W_q, s)` node and the typed [`Int8MatMul`] it becomes, which runs
//! [`int8_matmul`](super::int8_matmul) over weights packed once at load.
//!
//! The ONNX node is an expansion: when tract types the model, it reads the int8 weight and its scales
//! from their constants, packs them, and wires a one-input [`Int8MatMul`]; the constants then have no
//! reader and tract drops them. No f32 copy of a weight is ever made.

use std::sync::Arc;

use tract_onnx::model::{OnnxOpRegister, ParsingContext};
use tract_onnx::pb::NodeProto;
use tract_onnx::tract_hir::internal::*;

use super::graph::INT8_MATMUL;
use super::int8_matmul::{matmul, PackedWeights};

/// Teaches tract's ONNX parser the rewritten node.
pub(crate) fn register(ops: &mut OnnxOpRegister) {
    ops.insert(INT8_MATMUL, parse);
}

fn parse(_ctx: &ParsingContext, _node: &NodeProto) -> TractResult<(Box<dyn InferenceOp>, Vec<String>)> {
    Ok((expand(Int8MatMulSource), vec![]))
}

/// `EngramInt8MatMul(x[…, k], W_q[k, n], s)` as parsed, before the weights are packed.
#[derive(Clone, Debug)]
struct Int8MatMulSource;

impl Expansion for Int8MatMulSource {
    fn name(&self) -> StaticName {
        INT8_MATMUL.into()
    }

    fn rules<'r, 'p: 'r, 's: 'r>(&'s self, s: &mut Solver<'r>, inputs: &'p [TensorProxy], outputs: &'p [TensorProxy]) -> InferenceResult {
        check_input_arity(inputs, 3)?;
        check_output_arity(outputs, 1)?;
        s.equals(&inputs[0].datum_type, f32::datum_type())?;
        s.equals(&inputs[1].datum_type, i8::datum_type())?;
        s.equals(&inputs[2].datum_type, f32::datum_type())?;
        s.equals(&outputs[0].datum_type, f32::datum_type())?;
        s.equals(&inputs[1].rank, 2)?;
        s.equals(&outputs[0].rank, &inputs[0].rank)?;
        s.given(&inputs[0].rank, move |s, rank| {
            let last = rank as usize - 1;
            for axis in 0..last {
                s.equals(&outputs[0].shape[axis], &inputs[0].shape[axis])?;
            }
            s.equals(&inputs[0].shape[last], &inputs[1].shape[0])?;
            s.equals(&outputs[0].shape[last], &inputs[1].shape[1])
        })
    }

    fn wire(&self, prefix: &str, model: &mut TypedModel, inputs: &[OutletId]) -> TractResult<TVec<OutletId>> {
        ensure!(inputs.len() == 3, "{INT8_MATMUL} takes 3 inputs, got {}", inputs.len());
        let konst =
            |ix: usize| -> TractResult<Arc<Tensor>> { model.outlet_fact(inputs[ix])?.konst.clone().with_context(|| format!("{INT8_MATMUL}: input {ix} must be a constant")) };
        let (q, s) = (konst(1)?, konst(2)?);
        ensure!(q.rank() == 2, "{INT8_MATMUL}: the weight must be a matrix, got {:?}", q.shape());
        let (k, n) = (q.shape()[0], q.shape()[1]);
        let q_view = q.try_as_plain_ram()?;
        let s_view = s.try_as_plain_ram()?;
        let scales = s_view.as_slice::<f32>()?;
        let scales = match scales.len() {
            1 => vec![scales[0]; n],
            len if len == n => scales.to_vec(),
            len => bail!("{INT8_MATMUL}: {len} scales for {n} columns"),
        };
        let weights = PackedWeights::new(q_view.as_slice::<i8>()?, k, n, &scales).with_context(|| format!("{INT8_MATMUL}: a {k}×{n} weight does not pack"))?;
        model.wire_node(prefix, Int8MatMul { weights: Arc::new(weights) }, &inputs[..1])
    }
}

/// `x[…, k] → x · (W_q ⊙ s)[…, n]` with integer accumulation.
#[derive(Clone, Debug)]
pub(crate) struct Int8MatMul {
    weights: Arc<PackedWeights>,
}

impl PartialEq for Int8MatMul {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.weights, &other.weights)
    }
}
impl Eq for Int8MatMul {}

impl Op for Int8MatMul {
    fn name(&self) -> StaticName {
        INT8_MATMUL.into()
    }
    fn info(&self) -> TractResult<Vec<String>> {
        Ok(vec![format!("{}×{} int8, i16 activations", self.weights.k, self.weights.n)])
    }
    fn validation(&self) -> Validation {
        // Activations are rounded to 16 bits, so results differ from the f32 product in the last digits.
        Validation::Rounding
    }
    fn as_typed(&self) -> Option<&dyn TypedOp> {
        Some(self)
    }
}

impl EvalOp for Int8MatMul {
    fn eval_out_of_plan(&self, inputs: TVec<TValue>) -> TractResult<Option<TVec<TValue>>> {
        Ok(Some(EvalOp::eval(self, &EvalContext::out_of_plan(), inputs)?))
    }

    fn eval(&self, _ctx: &EvalContext, inputs: TVec<TValue>) -> TractResult<TVec<TValue>> {
        ensure!(inputs.len() == 1, "{INT8_MATMUL} takes one input, got {}", inputs.len());
        let x = &inputs[0];
        let (k, n) = (self.weights.k, self.weights.n);
        ensure!(x.shape().last() == Some(&k), "{INT8_MATMUL} expects [.., {k}], got {:?}", x.shape());
        let view = x.try_as_plain_ram()?;
        let xs = view.as_slice::<f32>()?;
        let rows = xs.len() / k;
        let mut shape: TVec<usize> = x.shape().into();
        *shape.last_mut().unwrap() = n;
        let mut out = Tensor::zero::<f32>(&shape)?;
        {
            let mut out_view = out.try_as_plain_ram_mut()?;
            matmul(xs, rows, &self.weights, out_view.as_slice_mut::<f32>()?);
        }
        Ok(tvec!(out.into_tvalue()))
    }
}

impl TypedOp for Int8MatMul {
    fn as_op(&self) -> &dyn Op {
        self
    }
    fn as_op_mut(&mut self) -> &mut dyn Op {
        self
    }
    fn output_facts(&self, inputs: &[&TypedFact]) -> TractResult<TVec<TypedFact>> {
        let x = inputs[0];
        ensure!(x.datum_type == f32::datum_type(), "{INT8_MATMUL} takes f32, got {:?}", x.datum_type);
        ensure!(x.rank() >= 1, "{INT8_MATMUL} takes rank ≥ 1");
        let mut shape: TVec<TDim> = x.shape.iter().cloned().collect();
        *shape.last_mut().unwrap() = self.weights.n.into();
        Ok(tvec!(f32::fact(shape)))
    }
    fn cost(&self, inputs: &[&TypedFact]) -> TractResult<TVec<(Cost, TDim)>> {
        let rows: TDim = inputs[0].shape.iter().rev().skip(1).product();
        Ok(tvec!((Cost::FMA(i32::datum_type()), rows * (self.weights.k * self.weights.n))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::graph::route_int8_matmuls;
    use tract_onnx::pb::{
        attribute_proto::AttributeType,
        tensor_proto::DataType,
        tensor_shape_proto::{dimension, Dimension},
        type_proto, AttributeProto, GraphProto, ModelProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
    };

    const M: usize = 3;
    const K: usize = 37;
    const N: usize = 11;

    fn value_info(name: &str, dims: &[usize]) -> ValueInfoProto {
        let dim = dims.iter().map(|&d| Dimension { value: Some(dimension::Value::DimValue(d as i64)), ..Default::default() }).collect();
        let tensor = type_proto::Tensor { elem_type: DataType::Float as i32, shape: Some(TensorShapeProto { dim }) };
        ValueInfoProto { name: name.into(), r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(tensor)), ..Default::default() }), ..Default::default() }
    }

    fn node(op: &str, inputs: &[&str], output: &str) -> NodeProto {
        NodeProto { op_type: op.into(), name: output.into(), input: inputs.iter().map(|s| s.to_string()).collect(), output: vec![output.into()], ..Default::default() }
    }

    /// `y = MatMul(x, Mul(Cast(q), s))` as the int8 export writes a linear layer; with `also_output`,
    /// the dequantized weight is a graph output too, so it must survive the rewrite.
    fn linear_layer(scale_dims: Vec<i64>, also_output: bool) -> ModelProto {
        let q: Vec<u8> = (0..K * N).map(|i| ((i * 53) % 256) as u8).collect();
        let n_scales = scale_dims.iter().product::<i64>() as usize;
        let scales: Vec<f32> = (0..n_scales).map(|i| 0.011 + 0.003 * i as f32).collect();
        let mut cast = node("Cast", &["q"], "q_f");
        cast.attribute.push(AttributeProto { name: "to".into(), r#type: AttributeType::Int as i32, i: DataType::Float as i64, ..Default::default() });
        let mut output = vec![value_info("y", &[M, N])];
        if also_output {
            output.push(value_info("w", &[K, N]));
        }
        let graph = GraphProto {
            node: vec![cast, node("Mul", &["q_f", "s"], "w"), node("MatMul", &["x", "w"], "y")],
            initializer: vec![
                TensorProto { name: "q".into(), dims: vec![K as i64, N as i64], data_type: DataType::Int8 as i32, raw_data: q, ..Default::default() },
                TensorProto { name: "s".into(), dims: scale_dims, data_type: DataType::Float as i32, float_data: scales, ..Default::default() },
            ],
            input: vec![value_info("x", &[M, K])],
            output,
            ..Default::default()
        };
        ModelProto { ir_version: 8, opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 17 }], graph: Some(graph), ..Default::default() }
    }

    fn run(proto: &ModelProto) -> Vec<f32> {
        let mut onnx = tract_onnx::onnx();
        register(&mut onnx.op_register);
        let plan = onnx.model_for_proto_model(proto).unwrap().into_optimized().unwrap().into_runnable().unwrap();
        let x: Vec<f32> = (0..M * K).map(|i| ((i * 7919) % 101) as f32 / 50.0 - 1.0).collect();
        let out = plan.run(tvec![Tensor::from_shape::<f32>(&[M, K], &x).unwrap().into_tvalue()]).unwrap();
        out[0].try_as_plain_ram().unwrap().as_slice::<f32>().unwrap().to_vec()
    }

    #[test]
    fn rewritten_layer_matches_the_float_graph() {
        for scale_dims in [vec![N as i64], vec![1, N as i64], vec![], vec![1]] {
            let original = linear_layer(scale_dims.clone(), false);
            let mut rewritten = original.clone();
            assert_eq!(route_int8_matmuls(rewritten.graph.as_mut().unwrap()), 1, "{scale_dims:?}");
            let ops: Vec<&str> = rewritten.graph.as_ref().unwrap().node.iter().map(|n| n.op_type.as_str()).collect();
            assert_eq!(ops, [INT8_MATMUL], "the Cast and Mul nothing reads are gone");
            let (want, got) = (run(&original), run(&rewritten));
            let peak = want.iter().fold(0f32, |m, v| m.max(v.abs()));
            for (g, w) in got.iter().zip(&want) {
                // 16-bit activations: well inside 1e-3 of the largest output.
                assert!((g - w).abs() <= 1e-3 * peak, "{scale_dims:?}: {g} vs {w}");
            }
            assert_ne!(got, want, "the integer path ran (it rounds activations, so it is not bit-identical)");
        }
    }

    #[test]
    fn shared_weights_keep_their_float_producer() {
        let mut proto = linear_layer(vec![N as i64], true);
        assert_eq!(route_int8_matmuls(proto.graph.as_mut().unwrap()), 1);
        let ops: Vec<&str> = proto.graph.as_ref().unwrap().node.iter().map(|n| n.op_type.as_str()).collect();
        assert_eq!(ops, ["Cast", "Mul", INT8_MATMUL]);
    }

    #[test]
    fn other_scale_shapes_are_left_alone() {
        // Per-row scales ([K, 1]) are not a per-column dequantization.
        let mut proto = linear_layer(vec![K as i64, 1], false);
        let before = proto.clone();
        assert_eq!(route_int8_matmuls(proto.graph.as_mut().unwrap()), 0);
        assert_eq!(proto, before);
    }
}
