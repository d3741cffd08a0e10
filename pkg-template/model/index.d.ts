/** This package's folder, holding model.onnx and tokenizer.json. */
export declare const dir: string;
/** Absolute path of model.onnx (all-MiniLM-L6-v2, int8 weights). */
export declare const model: string;
/** Absolute path of tokenizer.json (BERT uncased WordPiece). */
export declare const tokenizer: string;
