; Inno Setup script for PayDesk on Windows: installs the one-folder bundle that
; packaging/paydesk.spec builds into dist\paydesk, a Start menu entry and an uninstaller.
; packaging/build.py runs it as:
;   iscc /DAppVersion=<paydesk.__version__> /DSourceDir=dist\paydesk /DIconFile=build\icons\paydesk.ico /Odist paydesk.iss
#ifndef AppVersion
  #error Pass /DAppVersion=<version> (packaging/build.py does)
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\paydesk"
#endif
#ifndef IconFile
  #define IconFile "..\..\build\icons\paydesk.ico"
#endif

[Setup]
; the AppId stays the same across versions so that upgrades replace the old one
AppId={{6F1C2B4E-8A0D-4C57-9E3B-5D2A7F9C1E48}
AppName=PayDesk
AppVersion={#AppVersion}
AppVerName=PayDesk {#AppVersion}
AppPublisher=PayDesk developers
VersionInfoVersion={#AppVersion}
DefaultDirName={autopf}\PayDesk
DefaultGroupName=PayDesk
DisableProgramGroupPage=yes
; per-user by default (no administrator needed at a shop counter), all users on request
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputBaseFilename=PayDesk-{#AppVersion}-setup
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\paydesk.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; SignTool=... : code signing is configured by the release owner, not here

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\PayDesk"; Filename: "{app}\paydesk.exe"
Name: "{group}\PayDesk (sandbox)"; Filename: "{app}\paydesk.exe"; Parameters: "--sandbox"
Name: "{group}\{cm:UninstallProgram,PayDesk}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\PayDesk"; Filename: "{app}\paydesk.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\paydesk.exe"; Description: "{cm:LaunchProgram,PayDesk}"; Flags: nowait postinstall skipifsilent
