#![cfg(feature = "embedder")]
