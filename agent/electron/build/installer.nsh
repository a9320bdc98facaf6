; The NSIS installer's one addition (electron-builder.yml, nsis.include): IT installs the
; agent and its machine-wide configuration in one silent command,
;   ShopDesk-Print-Agent-Setup-1.2.0.exe /S /CONFIG=\\fileserver\it\shopdesk\agent.json
; which copies the file to %ProgramData%\ShopDesk\agent.json, where every user's tray (and a
; headless agent) reads it (docs/it-guide.md, "Push a configuration").
!include "FileFunc.nsh"

!macro customInstall
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/CONFIG=" $R1
  ${IfNot} ${Errors}
    ; perMachine: $APPDATA is the all-users folder, C:\ProgramData.
    SetShellVarContext all
    CreateDirectory "$APPDATA\ShopDesk"
    ClearErrors
    CopyFiles /SILENT "$R1" "$APPDATA\ShopDesk\agent.json"
    ${If} ${Errors}
      DetailPrint "ShopDesk: could not copy the configuration $R1"
      SetErrorLevel 2
    ${EndIf}
  ${EndIf}
!macroend
