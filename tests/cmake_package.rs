//! The CMake package (cmake/) against the crate: the version `find_package(warpsmith <version>)`
//! compares with is the crate's. The package itself is exercised end to end by
//! `tests/cmake/run.sh` (the `cmake` step of scripts/test.sh).

use std::path::Path;

#[test]
fn config_version_is_the_crate_version() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("cmake/warpsmithConfigVersion.cmake");
    let text = std::fs::read_to_string(&file).expect("cmake/warpsmithConfigVersion.cmake");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("set(PACKAGE_VERSION "))
        .expect("a set(PACKAGE_VERSION ...) line");
    let version = line.split('"').nth(1).expect("a quoted version");
    assert_eq!(version, env!("CARGO_PKG_VERSION"), "{}", file.display());
}
