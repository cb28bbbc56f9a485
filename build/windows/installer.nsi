; MetaClaw's Windows installer (NSIS 3, built by build/windows/package.sh).
; Per user: no administrator rights; installs into %LOCALAPPDATA%\Programs,
; adds a Start-menu entry, an uninstaller (Settings > Apps), and optionally
; starts MetaClaw at sign-in through the same HKCU Run value that
; `metaclaw autostart on` and the tray write (app/autostart).
;
; Defines (makensis -D): VERSION, VIVERSION (x.y.z.w), SRCDIR (metaclaw.exe,
; metaclaw-cli.exe, metaclaw.ico), OUTFILE.

Unicode true
!include "MUI2.nsh"

!define APPNAME "MetaClaw"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APPNAME}"
!define RUNKEY "Software\Microsoft\Windows\CurrentVersion\Run"
!ifndef VERSION
  !define VERSION "0.0.0"
!endif
!ifndef VIVERSION
  !define VIVERSION "0.0.0.0"
!endif
!ifndef SRCDIR
  !define SRCDIR "."
!endif
!ifndef OUTFILE
  !define OUTFILE "MetaClaw-${VERSION}-setup.exe"
!endif

Name "${APPNAME}"
OutFile "${OUTFILE}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\${APPNAME}"
InstallDirRegKey HKCU "${UNINSTKEY}" "InstallLocation"
SetCompressor /SOLID lzma
BrandingText "${APPNAME} ${VERSION}"

VIProductVersion "${VIVERSION}"
VIAddVersionKey "ProductName" "${APPNAME}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APPNAME} installer"
VIAddVersionKey "LegalCopyright" "MetaClaw developers"

!define MUI_ICON "${SRCDIR}\metaclaw.ico"
!define MUI_UNICON "${SRCDIR}\metaclaw.ico"
!define MUI_ABORTWARNING
!define MUI_COMPONENTSPAGE_NODESC
!define MUI_FINISHPAGE_RUN "$INSTDIR\metaclaw.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start MetaClaw now"
!define MUI_UNCONFIRMPAGE_TEXT_TOP "MetaClaw will be stopped and removed. Your data (skills, memories, settings) stays in the .metaclaw folder of your user profile."

!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "MetaClaw" SecApp
  SectionIn RO
  ; A running MetaClaw holds its files: stop it gracefully first.
  IfFileExists "$INSTDIR\metaclaw-cli.exe" 0 +2
    nsExec::Exec '"$INSTDIR\metaclaw-cli.exe" stop'
  SetOutPath "$INSTDIR"
  File "${SRCDIR}\metaclaw.exe"
  File "${SRCDIR}\metaclaw-cli.exe"
  File "${SRCDIR}\metaclaw.ico"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortCut "$SMPROGRAMS\${APPNAME}.lnk" "$INSTDIR\metaclaw.exe" "" "$INSTDIR\metaclaw.ico" 0
  ; The next section writes the Run value back when it is chosen.
  DeleteRegValue HKCU "${RUNKEY}" "${APPNAME}"

  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "${APPNAME}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "MetaClaw developers"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\metaclaw.ico"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "URLInfoAbout" "https://github.com/metaclaw/metaclaw"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
SectionEnd

Section "Start MetaClaw when I sign in" SecLogin
  WriteRegStr HKCU "${RUNKEY}" "${APPNAME}" '"$INSTDIR\metaclaw.exe"'
SectionEnd

Section "Uninstall"
  nsExec::Exec '"$INSTDIR\metaclaw-cli.exe" stop'
  DeleteRegValue HKCU "${RUNKEY}" "${APPNAME}"
  Delete "$SMPROGRAMS\${APPNAME}.lnk"
  Delete "$INSTDIR\metaclaw.exe"
  Delete "$INSTDIR\metaclaw-cli.exe"
  Delete "$INSTDIR\metaclaw.ico"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTKEY}"
SectionEnd
