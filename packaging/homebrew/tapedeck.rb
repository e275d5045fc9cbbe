# Homebrew formula for the `tapedeck` command, built from source with Swift.
# Put it in a tap (say OWNER/homebrew-tap as Formula/tapedeck.rb), with `url` and `sha256` set to
# the release tag's source archive:
#   curl -L https://github.com/OWNER/tapedeck/archive/refs/tags/v0.1.0.tar.gz | shasum -a 256
# Not built or audited on the machines this repository is developed on (no Homebrew there);
# Tests/TapedeckToolingTests/PackagingTests.swift checks that its test runs `tapedeck --version`.
class Tapedeck < Formula
  desc "Record real HTTP exchanges into JSON cassettes and play them back"
  homepage "https://github.com/OWNER/tapedeck"
  url "https://github.com/OWNER/tapedeck/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "MIT"
  head "https://github.com/OWNER/tapedeck.git", branch: "main"

  # Swift 6.1 or later: Xcode 16.3 on macOS, the swift formula on Linux.
  depends_on xcode: ["16.3", :build]
  uses_from_macos "swift" => :build
  uses_from_macos "zlib"

  def install
    system "swift", "build", "--disable-sandbox", "--configuration", "release", "--product", "tapedeck"
    bin.install ".build/release/tapedeck"
    generate_completions_from_executable(bin/"tapedeck", "--generate-completion-script")
  end

  test do
    assert_equal version.to_s, shell_output("#{bin}/tapedeck --version").strip
    assert_match "Serve cassettes over HTTP", shell_output("#{bin}/tapedeck replay --help")
  end
end
