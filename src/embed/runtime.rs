//! The transformer itself: the ONNX graph parsed by tract from bytes, rewritten (see `graph`), optimized
//! once into a plan whose `batch` and `sequence` dimensions stay symbolic, so one plan serves every batch
//! shape. (A plan fixed to one shape is no faster here and needs value-info checks switched off.)

use tract_onnx::pb::ModelProto;
use tract_onnx::prelude::*;

use super::graph::{gather_before_dequantize, route_int8_matmuls};
use super::int8_op;
use super::tokenize::Batch;
use super::Precision;
use crate::error::{Error, Result};

/// The three int64 `[batch, sequence]` inputs the BERT export takes, in the order we feed them.
const INPUTS: [&str; 3] = ["input_ids", "attention_mask", "token_type_ids"];
const OUTPUT: &str = "last_hidden_state";

pub(crate) struct Runtime {
    plan: Arc<TypedRunnableModel>,
    /// For each plan input slot, the index into [`INPUTS`] it takes.
    input_order: Vec<usize>,
    /// Width of the hidden state, read from the graph's output shape.
    pub dims: usize,
    /// How many embedding tables the gather-first rewrite applied to.
    pub rewrites: usize,
    /// How many weight products run on int8 weights (see `int8_op`).
    pub int8_matmuls: usize,
}

fn tract_err(context: &str) -> impl Fn(TractError) -> Error + '_ {
    move |e| Error::embedder(format!("{context}: {e:#}"))
}

impl Runtime {
    pub fn load(model: &[u8], precision: Precision) -> Result<Runtime> {
        let mut onnx = tract_onnx::onnx();
        int8_op::register(&mut onnx.op_register);
        let proto = onnx.proto_model_for_read(&mut &model[..]).map_err(|e| Error::invalid(format!("the model is not an ONNX protobuf: {e:#}")))?;
        Self::from_proto(&onnx, proto, precision)
    }

    fn from_proto(onnx: &tract_onnx::Onnx, mut proto: ModelProto, precision: Precision) -> Result<Runtime> {
        let graph = proto.graph.as_mut().ok_or_else(|| Error::invalid("the ONNX model has no graph"))?;
        let rewrites = gather_before_dequantize(graph);
        let int8_matmuls = if precision == Precision::Int8 { route_int8_matmuls(graph) } else { 0 };
        // tract would accept an unknown operator here and fail later with a less direct message. The
        // wasm build registers only the operators of sentence encoders (scripts/tract-trim.mjs).
        if let Some(node) = graph.node.iter().find(|n| !onnx.op_register.0.contains_key(&n.op_type)) {
            return Err(Error::embedder(format!(
                "the model uses the ONNX operator `{}` (node `{}`), which this build of Engram does not \
                 include; the wasm build carries the operators of BERT-family sentence encoders",
                node.op_type, node.name
            )));
        }

        let mut model = onnx.model_for_proto_model(&proto).map_err(tract_err("ONNX import failed"))?;
        // tract copied every initializer out of the protobuf; free it before typing the model, so the
        // two copies of the weights never coexist with the typed ones.
        drop(proto);
        // Keep only the output we pool; other outputs (e.g. a pooler) would be computed for nothing.
        model.select_outputs_by_name([OUTPUT]).map_err(|e| Error::invalid(format!("the ONNX model has no `{OUTPUT}` output: {e:#}")))?;

        let mut input_order = Vec::new();
        for outlet in model.input_outlets().map_err(tract_err("reading inputs"))?.to_vec() {
            let name = &model.node(outlet.node).name;
            let k = INPUTS.iter().position(|n| n == name).ok_or_else(|| Error::invalid(format!("unexpected model input `{name}`; expected {INPUTS:?}")))?;
            input_order.push(k);
        }
        if input_order.len() != INPUTS.len() {
            return Err(Error::invalid(format!("the model takes {} inputs; expected {INPUTS:?}", input_order.len())));
        }

        // tract's decluttering drops `And(mask, all-true)` even where the all-true operand was what
        // broadcast the attention mask to [batch, 1, seq, seq], and leaves the stale larger shape on the
        // nodes after it (harmless in release, but debug builds check every shape and fail). Recomputing
        // the facts after decluttering makes them describe what actually runs, before optimizing.
        let mut typed = model.into_typed().and_then(|m| m.into_decluttered()).map_err(tract_err("analysing the model"))?;
        typed.refresh_output_facts().map_err(tract_err("analysing the model"))?;
        let typed = typed.into_optimized().map_err(tract_err("optimizing the model"))?;
        let fact = typed.output_fact(0).map_err(tract_err("reading the output shape"))?;
        let dims = match fact.shape.iter().last().and_then(|d| d.to_i64().ok()) {
            Some(d) if fact.rank() == 3 && d > 0 => d as usize,
            _ => return Err(Error::invalid(format!("`{OUTPUT}` must be [batch, sequence, dims] with a fixed dims; it is {:?}", fact.shape))),
        };
        let plan = typed.into_runnable().map_err(tract_err("planning the model"))?;
        Ok(Runtime { plan, input_order, dims, rewrites, int8_matmuls })
    }

    /// Runs one padded batch; returns the flat `[rows, seq, dims]` hidden states.
    pub fn run(&self, batch: &Batch) -> Result<Vec<f32>> {
        let shape = [batch.rows, batch.seq];
        let columns = [&batch.input_ids, &batch.attention_mask, &batch.token_type_ids];
        let mut inputs: TVec<TValue> = tvec![];
        for &k in &self.input_order {
            let t = Tensor::from_shape::<i64>(&shape, columns[k]).map_err(tract_err("building inputs"))?;
            inputs.push(t.into_tvalue());
        }
        let outputs = self.plan.run(inputs).map_err(tract_err("inference failed"))?;
        let hidden = outputs.first().ok_or_else(|| Error::embedder("the model returned no output"))?;
        if hidden.shape() != [batch.rows, batch.seq, self.dims] {
            return Err(Error::embedder(format!("`{OUTPUT}` has shape {:?}; expected {:?}", hidden.shape(), [batch.rows, batch.seq, self.dims])));
        }
        let view = hidden.try_as_plain_ram().map_err(tract_err("reading the output"))?;
        Ok(view.as_slice::<f32>().map_err(tract_err("reading the output"))?.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use tract_onnx::pb::{GraphProto, NodeProto, OperatorSetIdProto};

    #[test]
    fn an_operator_the_build_lacks_is_named_in_the_error() {
        let mut onnx = tract_onnx::onnx();
        int8_op::register(&mut onnx.op_register);
        let node = |op: &str, input: &str, output: &str| NodeProto {
            op_type: op.into(),
            name: output.into(),
            input: vec![input.into()],
            output: vec![output.into()],
            ..Default::default()
        };
        let graph = GraphProto { node: vec![node("Identity", "input_ids", "a"), node("SurelyNotAnOnnxOp", "a", OUTPUT)], ..Default::default() };
        let proto = ModelProto { ir_version: 8, opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 17 }], graph: Some(graph), ..Default::default() };
        let err = Runtime::from_proto(&onnx, proto, Precision::Int8).err().expect("an unknown operator must be refused");
        assert_eq!(err.code, ErrorCode::Embedder);
        assert!(err.message.contains("`SurelyNotAnOnnxOp` (node `last_hidden_state`)"), "{}", err.message);
    }
}
