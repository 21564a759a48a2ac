// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title TokenStore (local stand-in)
/// @notice Holds one operator's escrowed funds. The escrow deploys one clone of this per
/// operator (CREATE2, salt = operator) and is the only caller it obeys. Same ABI as the
/// Commerce Payments Protocol's TokenStore (github.com/base/commerce-payments, MIT).
contract TokenStore {
    /// @notice The escrow this store (and every clone of it) answers to.
    address public immutable authCaptureEscrow;

    error OnlyAuthCaptureEscrow();

    constructor(address authCaptureEscrow_) {
        authCaptureEscrow = authCaptureEscrow_;
    }

    /// @notice Transfers `amount` of `token` to `recipient`; escrow only.
    function sendTokens(address token, address recipient, uint256 amount) external returns (bool) {
        if (msg.sender != authCaptureEscrow) revert OnlyAuthCaptureEscrow();
        SafeERC20.safeTransfer(IERC20(token), recipient, amount);
        return true;
    }
}
