//! Build script: lets napi-build emit the linker settings a Node addon needs.

fn main() {
    napi_build::setup();
}
