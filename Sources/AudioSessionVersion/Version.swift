/// The release of audiosession: the one place it is written. `audiosessiond --version` and
/// `audiosessionctl --version` print it, and the Makefile reads it from this file for the
/// package and tarball names (`make deb`, `make dist`), so keep it a plain string literal.
public enum AudioSessionVersion {
    public static let version = "0.1.0"
}
