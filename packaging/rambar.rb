# Homebrew cask for RAMBar. Copy it into a tap (a repository named
# homebrew-rambar, as Casks/rambar.rb); `brew install --cask rambar` then
# installs the notarized dmg that .github/workflows/release.yml attaches to
# the newest GitHub release, and links the CLI as `rambar`.
cask "rambar" do
  version :latest
  sha256 :no_check

  url "https://github.com/rambar/rambar/releases/latest/download/RAMBar.dmg"
  name "RAMBar"
  desc "Menu-bar app for RAM disks that shows what they really cost in memory"
  homepage "https://github.com/rambar/rambar"

  depends_on macos: ">= :ventura"

  app "RAMBar.app"
  binary "#{appdir}/RAMBar.app/Contents/MacOS/rambar"

  uninstall launchctl: "app.rambar.RAMBar",
            quit:      "app.rambar.RAMBar"

  # Saved disk contents (Application Support/RAMBar/Data) are the user's
  # files: zap removes the settings and the login item, never those.
  zap trash: [
        "~/Library/Application Support/RAMBar/Settings.plist",
        "~/Library/LaunchAgents/app.rambar.RAMBar.plist",
      ],
      rmdir: "~/Library/Application Support/RAMBar"
end
