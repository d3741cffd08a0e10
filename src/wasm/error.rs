//! Engine errors become JS `Error` objects whose `name` and `code` are the stable error code.

use wasm_bindgen::JsValue;

use crate::error::Error;

pub fn to_js(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    err.set_name(e.code.as_str());
    // Reflect.set on a fresh Error object cannot fail; ignore the boolean it returns.
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code.as_str()));
    err.into()
}
